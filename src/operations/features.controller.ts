import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { appConfig, type AppConfig } from '../config/app.config';
import { Public } from '../infra/auth/access';

class Features {
  @ApiProperty({
    description: 'ADMIN_TOKEN is set (a token, or generate): the /admin routes exist (and need the token)',
  })
  admin!: boolean;
  @ApiProperty({ description: 'FAULT_INJECTION=true: /admin/faults exists' }) faultInjection!: boolean;
}

/**
 * Which optional parts of the API this app runs with, so that a client (the console) can offer
 * only what exists without probing routes for a 404. Says nothing secret: those routes say as much.
 */
@ApiTags('operations')
@Public()
@Controller('features')
export class FeaturesController {
  constructor(@Inject(appConfig.KEY) private readonly config: AppConfig) {}

  @Get()
  @ApiOkResponse({ type: Features })
  features(): Features {
    return { admin: this.config.adminToken.kind !== 'none', faultInjection: this.config.faultInjection };
  }
}
