import { resultOfError, type SendInput, type SendResult } from './kind.ts';

/**
 * How the kinds that edit (`ChannelImpl.edits`: Discord, Telegram) deliver a message. Each gives its
 * own requests and its reading of the platform's answers.
 */
export type Editor<Answer> = {
  /** Sends the message as a new one. */
  post(): Promise<Answer>;
  /** Edits the message `thread` to show this one; null when `thread` is not a message it can edit. */
  edit(thread: string): Promise<Answer> | null;
  /** The message to edit is gone (deleted, or too old to edit). */
  isGone(answer: Answer): boolean;
  /** The result of an answer, with the id of the message it made as the thread when `answerThread`. */
  resultOf(answer: Answer, answerThread: boolean): SendResult;
};

/**
 * An acknowledgement or resolution edits the incident's first message (the thread); when that message
 * is gone, it is posted anew and that one is edited from then on. Anything else is a new message; the
 * first of an incident answers the thread (a test message does not).
 */
export async function postOrEdit<Answer>(input: SendInput, editor: Editor<Answer>): Promise<SendResult> {
  const { thread } = input;
  const { change } = input.message;
  try {
    const editing = thread !== null && (change === 'acknowledged' || change === 'resolved');
    const edited = editing ? editor.edit(thread) : null;
    if (edited) {
      const answer = await edited;
      if (!editor.isGone(answer)) return editor.resultOf(answer, false);
      return editor.resultOf(await editor.post(), true);
    }
    return editor.resultOf(await editor.post(), change !== 'test' && thread === null);
  } catch (error) {
    return resultOfError(error);
  }
}
