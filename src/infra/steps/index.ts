export type { CommandStep, Compensation, Step, StepFailure, StepInput } from './step';
export { StepRunner } from './step-runner';
