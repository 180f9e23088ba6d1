/**
 * Choreography's door: what the rest of the checkout may use of it. The checkout module
 * registers its parts; nothing else of it is used outside.
 */
import { ChoreographyMode } from './choreography.mode';
import { ResumeCheckoutController } from './resume-checkout.controller';
import { ResumeCheckout } from './resume-checkout.use-case';
import { StalledCheckouts } from './stalled-checkouts';
import { TrackProgressReaction } from './track-progress.reaction';

export { ChoreographyMode };

/** The choreographed checkout's controllers and providers, for the checkout module to register. */
export const CHOREOGRAPHY = {
  controllers: [ResumeCheckoutController],
  providers: [ChoreographyMode, TrackProgressReaction, StalledCheckouts, ResumeCheckout],
};
