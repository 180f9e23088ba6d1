import { Injectable } from '@nestjs/common';

/** The steps and compensations that this process's modules carry out, as each declares them at start. */
@Injectable()
export class StepCatalog {
  private readonly forward = new Set<string>();
  private readonly undoing = new Set<string>();

  declare(steps: readonly string[], compensations: readonly string[] = []): void {
    steps.forEach((step) => this.forward.add(step));
    compensations.forEach((step) => this.undoing.add(step));
  }

  steps(): string[] {
    return [...this.forward];
  }

  compensations(): string[] {
    return [...this.undoing];
  }
}
