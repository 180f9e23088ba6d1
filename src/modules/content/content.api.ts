import { Injectable } from '@nestjs/common';
import { Licensing } from './licensing/licensing';

/** What other modules may ask content. */
@Injectable()
export class ContentApi {
  constructor(private readonly licensing: Licensing) {}

  /** Plan id to the countries where it may be sold; `['*']` means every country. */
  licensedCountries(): Promise<Map<string, string[]>> {
    return this.licensing.licensedCountries();
  }
}
