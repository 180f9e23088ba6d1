import { describeStepFaults } from '../support/step-fault-spec';

describeStepFaults('choreography');
