// A tiny HTML template: every interpolated value is escaped unless it is itself an `html` fragment.

export class HtmlFragment {
  constructor(readonly markup: string) {}
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character])
}

function render(value: unknown): string {
  if (value instanceof HtmlFragment) {
    return value.markup
  }
  if (Array.isArray(value)) {
    return value.map(render).join("")
  }
  return value === undefined || value === null || value === false ? "" : escapeHtml(String(value))
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): HtmlFragment {
  return new HtmlFragment(strings.reduce((markup, text, index) => markup + text + (index < values.length ? render(values[index]) : ""), ""))
}
