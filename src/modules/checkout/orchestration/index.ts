/**
 * Orchestration's door: what the rest of the checkout may use of it. The checkout module
 * registers its parts; the timeline reads the saga's log. Everything else stays inside.
 */
import { OrchestrationMode } from './orchestration.mode';
import { OrchestratorReaction } from './orchestrator.reaction';
import { SagaDeadlines } from './saga-deadlines';
import { sagaConfig } from './saga.config';
import { SagaMetrics } from './saga.metrics';
import { Orchestrator } from './orchestrator';
import { SagasController } from './sagas.controller';
import { OpenSagasQuery } from './database/open-sagas.query';
import { SagasRepository } from './database/sagas.repository';

export { OrchestrationMode, sagaConfig, SagasRepository };

/** The orchestrated checkout's controllers and providers, for the checkout module to register. */
export const ORCHESTRATION = {
  controllers: [SagasController],
  providers: [
    SagasRepository,
    OpenSagasQuery,
    Orchestrator,
    SagaMetrics,
    OrchestratorReaction,
    SagaDeadlines,
    OrchestrationMode,
  ],
};
