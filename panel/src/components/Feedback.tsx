import { ApiError } from '../lib/api.ts';

/** The error of a failed request or mutation, as people read it. */
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const text = error instanceof ApiError ? error.text : String(error);
  return (
    <div className="alert error" role="alert">
      {title ? <strong>{title} </strong> : null}
      {text}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="spinner" role="status">
      {label}
    </div>
  );
}

/** Full-screen answer for a failed read: not found, forbidden, or the server's message. */
export function ReadError({ error }: { error: unknown }) {
  if (error instanceof ApiError && error.status === 404) {
    return (
      <div className="empty">
        <h1>Not found</h1>
        <p>{error.detail ?? 'This page does not exist, or it was deleted.'}</p>
        <a href="/">Back to the overview</a>
      </div>
    );
  }
  return <ErrorBox error={error} title="Could not load this page." />;
}
