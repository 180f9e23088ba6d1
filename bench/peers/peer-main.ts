import '../../src/infra/tracing/tracing.start';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { AddressInfo } from 'node:net';
import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/bootstrap/configure-app';
import { shutDownGracefully } from '../../src/bootstrap/graceful-shutdown';
import { appConfig } from '../../src/config/app.config';
import { Mode, type NewCheckout, OrchestrationMode } from '../../src/modules/checkout';
import { PEER_ENGINES, PeerEngine, type PeerEngineName } from './peer-engine';
import { PeerModule } from './peer.module';

/**
 * A peer checkout's process: our app as users run it (the same HTTP API, auth, Idempotency-Key
 * handling, StartCheckout and participants), in the api role only, so that neither our relay nor
 * our workers nor our orchestrator run, with the orchestrated checkout's start handed to a peer
 * engine (PEER: dbos or graphile-worker) in the transaction that writes the checkout. Requests ask
 * for `mode: orchestration`; the checkout rows say so (the checkouts table knows no other modes).
 */
class PeerMode extends Mode {
  readonly name = 'orchestration';
  engine?: PeerEngine;

  start(checkout: NewCheckout): Promise<void> {
    return this.engine!.start(checkout);
  }
}

async function bootstrap(): Promise<void> {
  const engine = process.env.PEER as PeerEngineName;
  if (!PEER_ENGINES.includes(engine)) throw new Error(`PEER must be one of ${PEER_ENGINES.join(', ')}`);
  process.env.APP_ROLES = 'api';
  const mode = new PeerMode();
  // Nest's way to replace one provider of a module it does not own: the testing module's override.
  const moduleRef = await Test.createTestingModule({ imports: [AppModule, PeerModule.for(engine)] })
    .overrideProvider(OrchestrationMode)
    .useValue(mode)
    .compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, bufferLogs: true });
  mode.engine = app.get(PeerEngine);
  configureApp(app);
  shutDownGracefully(app);
  await app.listen(appConfig().port);
  const bound = (app.getHttpServer().address() as AddressInfo).port;
  new Logger('Bootstrap').log(`Peer checkout (${engine}) listening on ${bound}`);
}

bootstrap().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
