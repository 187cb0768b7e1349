import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';

/**
 * The console's forms: uncontrolled inputs read with FormData on submit (a re-render never wipes
 * what was typed), the API's error shown next to the field it concerns and the focus moved
 * there, any other outcome said in the form's status line.
 */
type Module = Parameters<typeof explain>[1];

export interface Outcome {
  errors: Record<string, string>;
  status: string;
  busy: boolean;
}

export function useSubmit(
  module: Module,
  fields: string[],
  action: (data: FormData, form: HTMLFormElement) => Promise<string>,
): [Outcome, (ev: Event) => Promise<void>] {
  const [out, setOut] = useState<Outcome>({ errors: {}, status: '', busy: false });
  const [focus, setFocus] = useState('');
  useEffect(() => {
    if (!focus) return;
    document.querySelector<HTMLElement>(`[data-field="${focus}"] input, [data-field="${focus}"] select, [data-field="${focus}"] textarea`)?.focus();
    setFocus('');
  }, [focus]);
  const onSubmit = async (ev: Event) => {
    ev.preventDefault();
    const form = ev.currentTarget as HTMLFormElement;
    setOut({ errors: {}, status: '', busy: true });
    try {
      const status = await action(new FormData(form), form);
      setOut({ errors: {}, status, busy: false });
    } catch (err) {
      const e = explain(err, module, fields);
      if (e.field && fields.includes(e.field)) {
        setOut({ errors: { [e.field]: e.text }, status: 'Please correct the field marked.', busy: false });
        setFocus(e.field);
      } else setOut({ errors: {}, status: e.text, busy: false });
    }
  };
  return [out, onSubmit];
}

/** A group of checkboxes (or radios) with a legend and its error, as Field does for one input. */
export function Choices({ name, legend, error, children }: { name: string; legend: string; error?: string; children: ComponentChildren }) {
  const id = `f-${name}`;
  return (
    <fieldset class={`field choices${error ? ' invalid' : ''}`} data-field={name} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {children}
      {error && (
        <span id={`${id}-error`} class="field-error" role="alert">
          {error}
        </span>
      )}
    </fieldset>
  );
}

/** A labelled select with its error next to it. */
export function SelectField({
  name,
  label,
  error,
  options,
  selected,
  required,
}: {
  name: string;
  label: string;
  error?: string;
  options: Array<[string, string]>;
  selected?: string;
  required?: boolean;
}) {
  const id = `f-${name}`;
  return (
    <div class={`field${error ? ' invalid' : ''}`} data-field={name}>
      <label for={id}>{label}</label>
      <select id={id} name={name} required={required} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined}>
        {options.map(([value, text]) => (
          <option value={value} selected={value === selected}>
            {text}
          </option>
        ))}
      </select>
      {error && (
        <span id={`${id}-error`} class="field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

/** A row's delete button that asks once more in place (no browser dialog): Delete → "Delete X?" Yes / Cancel. */
export function ConfirmDelete({ what, onConfirm }: { what: string; onConfirm(): Promise<void> }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking)
    return (
      <button type="button" class="danger" aria-label={`Delete ${what}`} onClick={() => setAsking(true)}>
        Delete
      </button>
    );
  return (
    <span class="inline" role="group" aria-label={`Delete ${what}?`}>
      <span>Delete {what}?</span>
      <button
        type="button"
        class="danger"
        disabled={busy}
        ref={(el) => el?.focus()}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        Yes, delete
      </button>
      <button type="button" class="ghost" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** Which sub-section of a page the address names (`#/people/groups` → groups), else the first. */
export function useSection(page: string, sections: string[]): string {
  const read = () => {
    const s = location.hash.replace(/^#\/?/, '').split('/');
    return s[0] === page && s[1] && sections.includes(s[1]) ? s[1] : (sections[0] ?? '');
  };
  const [section, setSection] = useState(read);
  useEffect(() => {
    const on = () => setSection(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, [sections.join()]);
  return sections.includes(section) ? section : (sections[0] ?? '');
}

/** The links between a page's sections (`#/page/section`), the current one marked. */
export function SectionNav({ page, sections, current, label }: { page: string; sections: Array<[string, string]>; current: string; label: string }) {
  return (
    <nav aria-label={label}>
      <ul class="tabs plain-tabs">
        {sections.map(([id, title]) => (
          <li>
            <a class="button secondary" href={`#/${page}/${id}`} aria-current={id === current ? 'page' : undefined} data-section={id}>
              {title}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** A form that opens moves the focus to its first field (keyboard and screen-reader users land in it). */
export function useFirstFocus(formId: string): void {
  useEffect(() => {
    document.querySelector<HTMLElement>(`#${formId} input, #${formId} select`)?.focus();
  }, []);
}
