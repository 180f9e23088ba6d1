import { Injectable, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
// The library's own decorator: the course's handlers use it, so Subscriptions must read it too.
import { EventEmitterModule, OnEvent as OnEventOfTheLibrary } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { IsString } from 'class-validator';
import { defineEvent } from '../message';
import { OnEvent } from './on-event';
import { Consumer, Subscriptions } from './subscriptions';

class NotePayload {
  @IsString() text!: string;
}
const NoteTaken = defineEvent('notes.note-taken.v1', NotePayload);

async function boot(provider: new (...args: never[]) => object, imports: unknown[] = []): Promise<Subscriptions> {
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule, ...(imports as [])],
    providers: [Subscriptions, provider],
  }).compile();
  await moduleRef.init();
  return moduleRef.get(Subscriptions);
}

describe('Subscriptions', () => {
  it('when a method has @OnEvent and @Consumer, then it is a consumer of the contract of that type', async () => {
    @Injectable()
    class Notes {
      @OnEvent(NoteTaken.type)
      @Consumer('notes.file-note', { dedup: 'handler', exclusive: true })
      async file(): Promise<void> {}
    }

    const subscriptions = await boot(Notes);

    expect(subscriptions.consumer('notes.file-note')).toMatchObject({
      queue: 'notes',
      dedup: 'handler',
      exclusive: true,
      contracts: [NoteTaken],
    });
    expect(subscriptions.of(NoteTaken.type).map((s) => s.consumer)).toEqual(['notes.file-note']);
  });

  it('when @Consumer says nothing of where, role, exclusive nor dedup, then the defaults hold', async () => {
    @Injectable()
    class Notes {
      @OnEvent(NoteTaken.type)
      @Consumer('notes.file-note')
      async file(): Promise<void> {}
    }

    const subscriptions = await boot(Notes);

    expect(subscriptions.consumer('notes.file-note')).toMatchObject({
      queue: 'notes',
      role: 'worker',
      where: {},
      exclusive: false,
      dedup: 'transport',
    });
  });

  it("when a handler is declared with the library's own @OnEvent, as the course does, then it is the same consumer", async () => {
    @Injectable()
    class Notes {
      @OnEventOfTheLibrary(NoteTaken.type)
      @Consumer('notes.file-note', { dedup: 'handler' })
      async file(): Promise<void> {}
    }

    const subscriptions = await boot(Notes);

    expect(subscriptions.consumer('notes.file-note')).toMatchObject({ dedup: 'handler', contracts: [NoteTaken] });
  });

  it('when @OnEvent names a type that no contract defines, then the app does not start', async () => {
    @Injectable()
    class Notes {
      // Only the library's decorator takes a bare string; ours does not compile with one.
      @OnEventOfTheLibrary('notes.note-lost.v1')
      @Consumer('notes.file-note')
      async file(): Promise<void> {}
    }

    await expect(boot(Notes)).rejects.toThrow(
      'Notes.file: @OnEvent(notes.note-lost.v1) names no message type defined by defineEvent or defineCommand',
    );
  });

  it('when a provider has @OnEvent without @Consumer, then the app does not start', async () => {
    @Injectable()
    class Notes {
      @OnEvent(NoteTaken.type)
      async file(): Promise<void> {}
    }

    await expect(boot(Notes)).rejects.toThrow('Notes.file has @OnEvent but no @Consumer');
  });

  it('when a method has @Consumer without @OnEvent, then the app does not start', async () => {
    @Injectable()
    class Notes {
      @Consumer('notes.file-note')
      async file(): Promise<void> {}
    }

    await expect(boot(Notes)).rejects.toThrow('Notes.file has @Consumer but no @OnEvent');
  });

  it('when EventEmitterModule is loaded, then the app does not start', async () => {
    @Injectable()
    class Notes {}
    @Module({ imports: [EventEmitterModule.forRoot()] })
    class WithEmitter {}

    await expect(boot(Notes, [WithEmitter])).rejects.toThrow('EventEmitterModule is loaded');
  });
});
