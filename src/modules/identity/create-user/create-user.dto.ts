import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsISO31661Alpha2, IsString, Length, Matches, MaxLength } from 'class-validator';
import { UserResponse } from '../user.dto';

const trimmed = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

export class CreateUserDto {
  @ApiProperty({ example: 'ana@example.com', maxLength: 254 })
  @trimmed()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email!: string;

  @ApiProperty({ example: 'Ana Souza', minLength: 1, maxLength: 100 })
  @trimmed()
  @IsString()
  @Length(1, 100)
  @Matches(/^[^\p{Cc}]*$/u, { message: 'name must not contain control characters' })
  name!: string;

  @ApiProperty({ example: 'BR', description: 'ISO 3166-1 alpha-2 country code' })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toUpperCase() : value))
  @IsISO31661Alpha2({ message: 'country must be an ISO 3166-1 alpha-2 code, such as BR or PT' })
  country!: string;
}

export class CreatedUserResponse extends UserResponse {
  @ApiProperty({
    description:
      "The buyer's bearer token: send it as `Authorization: Bearer <token>` to start and read their checkouts",
  })
  token!: string;
}
