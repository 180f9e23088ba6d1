import { IsInt, IsString, Length, Matches, Max, Min } from 'class-validator';
import { OPERATIONS } from './domain/documents';

/** The routes a lab's faults are aimed at: each operation, and the listing of a reference. */
export const ROUTES = [...OPERATIONS, 'listing'] as const;
export type Route = (typeof ROUTES)[number];

export class InvoiceBody {
  @IsString() @Length(1, 200) reference!: string;
  @IsString() @Length(1, 200) buyer!: string;
  @IsString() @Length(1, 500) description!: string;
  @IsInt() @Min(1) @Max(100_000_000) amountCents!: number;
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code, such as BRL' }) currency!: string;
}

export class CancellationBody {
  @IsString() @Length(1, 500) reason!: string;
}

export class ReturnNoteBody {
  @IsString() @Length(1, 200) invoiceId!: string;
  @IsString() @Length(1, 500) reason!: string;
}
