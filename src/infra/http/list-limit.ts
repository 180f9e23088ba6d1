import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export const MAX_LIST_LIMIT = 500;

/** An optional `?limit=` on an admin listing: a whole number from 1 to MAX_LIST_LIMIT. */
export function ListLimit(defaultLimit: number): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ default: defaultLimit, maximum: MAX_LIST_LIMIT }),
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(1),
    Max(MAX_LIST_LIMIT),
  );
}
