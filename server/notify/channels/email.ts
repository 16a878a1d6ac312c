import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import nodemailer from 'nodemailer';
import { parseHostPort } from '../../../protocol/targets.ts';
import { outboundAddress } from '../../http/outbound.ts';
import type { Message } from '../message.ts';
import {
  alertName,
  alertState,
  causeLine,
  clip,
  escapeHtml,
  evidenceLines,
  headline,
  moreAlerts,
  plainText,
  stateLine,
} from '../text.ts';
import { type ChannelImpl, resultOfError, type SendInput, type SendResult, withoutSecrets } from './kind.ts';

/**
 * The email channel: one mail per change over SMTP, with a text and an HTML part. Mail cannot be
 * edited, so the changes of an incident form a thread instead: the opening's Message-ID is the thread,
 * and every later mail answers it (In-Reply-To, References), which mail apps show as one conversation.
 */
export const email: ChannelImpl = {
  async send(input) {
    const { settings } = input.channel;
    const server = settings.smtp ? parseHostPort(settings.smtp.trim()) : null;
    if (!server || !settings.from || settings.to.length === 0)
      return { ok: false, permanent: true, error: 'no SMTP server, sender or recipients' };
    return withoutSecrets(await deliver(input, server, settings.from), input.channel);
  },
};

/**
 * How long one mail may take in all, from connecting to the server's last reply. The per-stage
 * timeouts below only limit silence: a server that trickles its replies a byte at a time would
 * otherwise hold a send slot, the messages queued behind it and mon's stop, for as long as it likes.
 */
export const SMTP_DEADLINE_MS = 60_000;

/**
 * Whether the connection is TLS from its first byte: `tls` true; false never (STARTTLS when the
 * server offers it); null by port, as mail clients do (465 is submission over TLS).
 */
export function implicitTls(tls: boolean | null, port: number): boolean {
  return tls ?? port === 465;
}

async function deliver(
  input: SendInput,
  server: { host: string; port: number },
  from: string,
): Promise<SendResult> {
  const { settings } = input.channel;
  const m = input.message;
  const deadlineMs = input.smtpDeadlineMs ?? SMTP_DEADLINE_MS;
  const deadline = AbortSignal.timeout(deadlineMs);
  try {
    // Resolved and checked once; the connection goes to that address and TLS verifies the name.
    const { address } = await outboundAddress(server.host, settings.allowPrivate);
    const transport = nodemailer.createTransport({
      host: address,
      port: server.port,
      secure: implicitTls(settings.tls, server.port),
      ...(isIP(server.host) ? {} : { servername: server.host }),
      tls: {
        rejectUnauthorized: true,
        ...(input.extraCa?.length ? { ca: [...rootCertificates, ...input.extraCa] } : {}),
      },
      // The password goes only over TLS: without TLS from the start, STARTTLS is required, so a
      // server without it (or a man in the middle that strips it) gets no AUTH in clear.
      ...(settings.username && settings.secret
        ? { auth: { user: settings.username, pass: settings.secret }, requireTLS: true }
        : {}),
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    const messageId = messageIdOf(input.messageId, from);
    const sent = await transport.sendMail({
      from,
      to: settings.to,
      subject: subjectOf(m),
      text: plainText(m),
      html: htmlOf(m),
      messageId,
      ...(input.thread ? { inReplyTo: input.thread, references: [input.thread] } : {}),
      // Tells vacation responders not to answer.
      headers: { 'Auto-Submitted': 'auto-generated' },
      // Either ends the exchange and closes the connection: mon stopping, or the deadline.
      signal: AbortSignal.any([input.signal, deadline]),
    });
    // Some recipients refused (all refused is an error): the others have it, so a retry cannot help,
    // but the channel's list needs fixing, which a delivery marked sent would hide.
    const refused = sent.rejected ?? [];
    if (refused.length > 0) {
      const reply = sent.rejectedErrors?.[0];
      const why = reply ? resultOfSmtp(reply) : null;
      return {
        ok: false,
        permanent: true,
        error: `refused ${refused.join(', ')}${why && !why.ok ? ` (${why.error})` : ''}; sent to the others`,
      };
    }
    return m.change !== 'test' && input.thread === null ? { ok: true, thread: messageId } : { ok: true };
  } catch (error) {
    if (deadline.aborted && !input.signal.aborted) {
      return {
        ok: false,
        permanent: false,
        error: `the SMTP exchange did not finish within ${deadlineMs / 1000} s`,
      };
    }
    return resultOfSmtp(error);
  }
}

/** The headline on one line, short enough for any mail app's list. */
export function subjectOf(m: Message): string {
  return clip(headline(m).replace(/\s+/g, ' ').trim(), 200);
}

/** A Message-ID from the outbox's id (the same on every retry) in the sender's domain. */
function messageIdOf(id: string, from: string): string {
  const domain = from.slice(from.lastIndexOf('@') + 1).replace(/[^A-Za-z0-9.-]/g, '') || 'mon.invalid';
  return `<mon.${id.replace(/[^A-Za-z0-9.-]/g, '-')}@${domain}>`;
}

const colour: Record<Message['change'], string> = {
  opened: '#d93025',
  reminder: '#f29900',
  acknowledged: '#1a73e8',
  resolved: '#1e8e3e',
  test: '#5f6368',
};

/** The HTML part: the same words as the text part, escaped; no images, the headline links to the incident. */
export function htmlOf(m: Message, maxAlerts = 10): string {
  const h = escapeHtml;
  const head = m.url ? `<a href="${h(m.url)}" style="color:inherit">${h(headline(m))}</a>` : h(headline(m));
  const parts = [
    `<h2 style="margin:0 0 4px;padding-left:8px;border-left:4px solid ${colour[m.change]};font-size:18px">${head}</h2>`,
    `<p style="margin:0 0 12px;color:#555">${h(stateLine(m))}</p>`,
  ];
  if (m.failing.length > 0) {
    const shown = m.failing.slice(0, maxAlerts);
    const items = shown.map((a) => `<li><strong>${h(alertName(a))}</strong> ${h(alertState(a))}</li>`);
    const more = moreAlerts(m, shown.length);
    if (more) items.push(`<li>${h(more)}</li>`);
    parts.push(`<ul style="margin:0 0 12px;padding-left:20px">${items.join('')}</ul>`);
  }
  const cause = causeLine(m);
  if (cause) {
    parts.push(`<p style="margin:0 0 4px">${h(cause)}</p>`);
    const evidence = evidenceLines(m).map((e) => `<li>${h(e)}</li>`);
    if (evidence.length > 0)
      parts.push(`<ul style="margin:0 0 12px;padding-left:20px">${evidence.join('')}</ul>`);
  }
  if (m.url) parts.push(`<p style="margin:12px 0 0"><a href="${h(m.url)}">${h(m.url)}</a></p>`);
  return `<!doctype html><html><body style="font-family:sans-serif;line-height:1.4;color:#222">${parts.join('\n')}</body></html>`;
}

/**
 * An SMTP failure: a 5xx reply is permanent (unknown recipient, 535 sign-in refused), a 4xx reply
 * and connection errors are worth retrying.
 */
function resultOfSmtp(error: unknown): SendResult {
  const e = error as { responseCode?: unknown; response?: unknown; message?: unknown; command?: unknown };
  if (e?.command === 'STARTTLS' && typeof e.responseCode === 'number') {
    return {
      ok: false,
      permanent: true,
      error: `the SMTP server refused STARTTLS (${e.responseCode}); mon sends the password only over TLS`,
    };
  }
  if (typeof e?.responseCode === 'number' && e.responseCode >= 400 && e.responseCode < 600) {
    const reply = (typeof e.response === 'string' ? e.response : String(e.message))
      .replace(/\s+/g, ' ')
      .replace(new RegExp(`^${e.responseCode}[ -]?`), '')
      .trim()
      .slice(0, 200);
    return {
      ok: false,
      permanent: e.responseCode >= 500,
      error: `SMTP server answered ${e.responseCode}${reply ? `: ${reply}` : ''}`,
    };
  }
  return resultOfError(error);
}
