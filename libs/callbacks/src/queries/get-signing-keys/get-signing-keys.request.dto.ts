import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

export class GetSigningKeysRequestDto {
  @ApiPropertyOptional({
    enum: ['retired'],
    description:
      "`retired`: the organization's retired keys too, for an auditor verifying audit checkpoints signed before a key " +
      'was retired (`warden audit verify --jwks`). Receivers of callbacks leave it out: a retired key signs nothing any more',
  })
  @IsOptional()
  @IsIn(['retired'], { message: 'include must be retired' })
  include?: 'retired';
}
