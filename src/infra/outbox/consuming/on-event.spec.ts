import { EVENT_LISTENER_METADATA } from '@nestjs/event-emitter';
import { IsInt, IsString } from 'class-validator';
import { defineCommand, defineEvent, type Delivery, type MessageType } from '../message';
import { OnEvent } from './on-event';

class NotePayload {
  @IsString() text!: string;
}
class SignedNotePayload extends NotePayload {
  @IsString() author!: string;
}
class CountPayload {
  @IsInt() count!: number;
}
const NoteTaken = defineEvent('notes.note-taken.v1', NotePayload);
const NoteSigned = defineEvent('notes.note-signed.v1', SignedNotePayload);
const CountNotes = defineCommand('notes.count-notes.v1', CountPayload);

const listensTo = (method: unknown) => Reflect.getMetadata(EVENT_LISTENER_METADATA, method as object) as unknown;

describe('OnEvent', () => {
  it("when a method has @OnEvent, then it carries the library's metadata, as @nestjs/event-emitter writes it", () => {
    class Notes {
      @OnEvent(NoteTaken.type)
      async file(_note: NotePayload, _delivery: Delivery): Promise<void> {}

      @OnEvent([NoteTaken.type, CountNotes.type])
      async count(_message: NotePayload | CountPayload): Promise<void> {}
    }

    expect(listensTo(Notes.prototype.file)).toEqual([{ event: 'notes.note-taken.v1', options: undefined }]);
    expect(listensTo(Notes.prototype.count)).toEqual([
      { event: ['notes.note-taken.v1', 'notes.count-notes.v1'], options: undefined },
    ]);
  });

  // What the compiler says: `tsc --noEmit` (in `npm run lint`, and test/architecture.int-spec.ts)
  // fails on an @ts-expect-error below that has no error to expect.
  it('when a handler takes the payload of every type it names, or a supertype of it, then it compiles', () => {
    const types: MessageType[] = [NoteTaken.type, CountNotes.type];
    class Notes {
      @OnEvent(NoteSigned.type)
      async wider(_note: NotePayload): Promise<void> {}

      @OnEvent([NoteTaken.type, CountNotes.type])
      async either(_message: NotePayload | CountPayload, _delivery: Delivery): Promise<void> {}

      @OnEvent(NoteTaken.type)
      async withoutParameters(): Promise<void> {}

      // Types listed by a table lose their payloads: the handler must take any object.
      @OnEvent(types)
      async anyOf(_message: { text?: string; count?: number }): Promise<void> {}
    }

    expect(listensTo(Notes.prototype.anyOf)).toEqual([{ event: ['notes.note-taken.v1', 'notes.count-notes.v1'] }]);
  });

  it("when a handler names a string no contract defines, or takes a payload that is not the contract's, then it does not compile", () => {
    class Notes {
      // @ts-expect-error a string, not a type a contract defines
      @OnEvent('notes.note-taken.v1')
      async bare(_note: NotePayload): Promise<void> {}

      // @ts-expect-error another contract's payload
      @OnEvent(NoteTaken.type)
      async another(_count: CountPayload): Promise<void> {}

      // @ts-expect-error a payload narrower than the contract's
      @OnEvent(NoteTaken.type)
      async narrower(_note: SignedNotePayload): Promise<void> {}

      // @ts-expect-error the payload of one of the two types it names
      @OnEvent([NoteTaken.type, CountNotes.type])
      async oneOfTwo(_note: NotePayload): Promise<void> {}

      // @ts-expect-error a delivery that is not one
      @OnEvent(NoteTaken.type)
      async notADelivery(_note: NotePayload, _delivery: string): Promise<void> {}

      // @ts-expect-error a handler whose transaction could not wait for it
      @OnEvent(NoteTaken.type)
      unawaited(_note: NotePayload): void {}
    }

    // Types are gone at run time: what the compiler refused, the decorator still records as given.
    expect(listensTo(Notes.prototype.bare)).toEqual([{ event: 'notes.note-taken.v1' }]);
  });
});
