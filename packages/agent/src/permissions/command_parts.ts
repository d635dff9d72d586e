/** What `command_parts` found in a shell line. */
export interface CommandParts {
  /** The simple commands, split at `;`, `&`, `&&`, `||`, `|` and newlines, trimmed, spaces collapsed. */
  parts: string[];
  /**
   * True when the line does more than run its parts with arguments: a redirection, a command
   * substitution, a subshell, a here-document, an unclosed quote. An allow pattern never covers
   * such a line.
   */
  opaque: boolean;
}

/**
 * Splits a shell line into its simple commands, quote-aware, for permission rules. It is not a
 * shell parser: it only needs to tell a line an allow pattern may cover (`git status --short`)
 * from one it may not (`git status; rm -rf ~`, `echo $(curl …)`, `ls > out`).
 * Pure; never throws.
 */
export function command_parts(line: string): CommandParts {
  const parts: string[] = [];
  let opaque = false;
  let current = '';
  let quote: '"' | "'" | null = null;
  const push = () => {
    const part = current.replace(/\s+/g, ' ').trim();
    if (part !== '') parts.push(part);
    current = '';
  };
  for (let index = 0; index < line.length; index++) {
    const char = line[index] as string;
    const next = line[index + 1];
    if (quote === "'") {
      current += char;
      if (char === "'") quote = null;
      continue;
    }
    if (char === '\\') {
      current += char + (next ?? '');
      index += 1;
      continue;
    }
    if (quote === '"') {
      current += char;
      if (char === '"') quote = null;
      else if (char === '`' || (char === '$' && next === '(')) opaque = true;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      current += char;
      continue;
    }
    if (char === '`' || (char === '$' && next === '(')) opaque = true;
    if (char === '<' || char === '>' || char === '(' || char === ')') opaque = true;
    if (char === ';' || char === '\n' || char === '|' || char === '&') {
      push();
      if ((char === '|' || char === '&') && (next === char || (char === '|' && next === '&'))) {
        index += 1;
      }
      continue;
    }
    current += char;
  }
  if (quote !== null) opaque = true;
  push();
  return { parts, opaque };
}
