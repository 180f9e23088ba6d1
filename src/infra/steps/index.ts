export type { CommandStep, Compensation, Step, StepFailure, StepInput, StepRun } from './step';
export { StepCatalog } from './step-catalog';
export { StepRunner } from './step-runner';
