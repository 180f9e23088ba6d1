import { Inject, Injectable } from '@nestjs/common';
import { appConfig, type AppConfig, type AppRole } from '../../config/app.config';

/** Which parts of the app this process runs (APP_ROLES): a process may run any mix of them. */
@Injectable()
export class AppRoles {
  constructor(@Inject(appConfig.KEY) private readonly config: AppConfig) {}

  has(role: AppRole): boolean {
    return this.config.roles.has(role);
  }
}
