import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useState } from 'preact/hooks';
import { explain } from './errors.js';
import { signIn, signInNote } from './session.js';
import { theme, toggleTheme } from './theme.js';

/** Small building blocks shared by the console and the agent desk. */

export function ThemeButton() {
  const dark = theme.value === 'dark';
  return (
    <button type="button" class="ghost" aria-pressed={dark} onClick={toggleTheme}>
      Dark theme
    </button>
  );
}

/** The sign-in form (auth/login): the same login as the API, a client's username or an agent's e-mail. */
export function SignIn({ title }: { title: string }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    const form = ev.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setBusy(true);
    setError('');
    try {
      await signIn(String(data.get('username')).trim(), String(data.get('password')));
    } catch (err) {
      const e = explain(err);
      setError((err as { code?: number }).code === 1014 ? 'Wrong username or password.' : e.text);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <form onSubmit={submit} aria-labelledby="signin-title" class="card">
        <h1 id="signin-title">{title}</h1>
        {signInNote.value && <p class="note">{signInNote.value}</p>}
        <label for="signin-username">Username or agent e-mail</label>
        <input id="signin-username" name="username" autocomplete="username" required />
        <label for="signin-password">Password</label>
        <input id="signin-password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <p id="signin-error" class="error" role="alert">
          {error}
        </p>
        <p class="footer">
          <ThemeButton />
        </p>
      </form>
    </main>
  );
}

interface FieldProps {
  /** The request field (and the input's name). */
  name: string;
  label: string;
  /** The error shown under the field (from the API's answer). */
  error?: string;
  type?: string;
  value?: string;
  required?: boolean;
  autocomplete?: string;
  hint?: string;
  children?: ComponentChildren;
  inputProps?: InputHTMLAttributes<HTMLInputElement>;
}

/** A labelled input with its error next to it (aria-describedby, aria-invalid). */
export function Field({ name, label, error, type = 'text', value, required, autocomplete, hint, children, inputProps }: FieldProps) {
  const id = `f-${name}`;
  const described = [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${error ? ' invalid' : ''}`} data-field={name}>
      <label for={id}>{label}</label>
      {children ?? (
        <input
          id={id}
          name={name}
          type={type as 'text'}
          value={value}
          required={required}
          autocomplete={autocomplete ?? 'off'}
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          {...inputProps}
        />
      )}
      {hint && (
        <span id={`${id}-hint`} class="hint">
          {hint}
        </span>
      )}
      {error && (
        <span id={`${id}-error`} class="field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

/** A polite live region: what happened after an action, read out by screen readers. */
export function Status({ text, id }: { text: string; id?: string }) {
  return (
    <p class="status" role="status" aria-live="polite" id={id}>
      {text}
    </p>
  );
}

export interface Column<T> {
  label: string;
  cell(row: T): ComponentChildren;
  /** Right-aligned figures. */
  num?: boolean;
}

/** A table with a caption; scrolls sideways on a phone rather than squeezing. */
export function Table<T>({
  caption,
  columns,
  rows,
  rowKey,
  empty = 'Nothing to show.',
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey(row: T): string;
  empty?: string;
}) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={caption}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" class={c.num ? 'num' : undefined}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length}>{empty}</td>
            </tr>
          ) : (
            rows.map((r) => (
              <tr key={rowKey(r)} data-key={rowKey(r)}>
                {columns.map((c) => (
                  <td class={c.num ? 'num' : undefined}>{c.cell(r)}</td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
