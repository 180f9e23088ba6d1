import { ApiProperty } from '@nestjs/swagger';

/** A user as the API shows one: what signing up, reading and blocking a user all answer. */
export class UserResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'ana@example.com' }) email!: string;
  @ApiProperty({ example: 'Ana Souza' }) name!: string;
  @ApiProperty({ example: 'BR' }) country!: string;
  @ApiProperty({ enum: ['active', 'blocked'], example: 'active' }) status!: string;
}
