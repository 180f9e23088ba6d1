import { Module } from '@nestjs/common';
import { InvariantsController } from './invariants.controller';
import { Invariants } from './invariants';

/** Operators' views across the modules. */
@Module({ controllers: [InvariantsController], providers: [Invariants], exports: [Invariants] })
export class OperationsModule {}
