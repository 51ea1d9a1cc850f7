/**
 * The declarations of workers/script/script-api.ts that a script sees, read from that file's text with their TSDoc:
 * what the declaration file copies and the reference page documents (script-declarations.ts, script-reference.ts).
 */

/**
 * The declarations of script-api.ts a script does not see: what a host answers for the sandbox. Every other exported
 * interface and type of that file goes into the declaration file, so a type added there reaches scripts.
 */
const HOST_ONLY = new Set(['ScriptCalls', 'ScriptCallName']);

/** A declaration copied from script-api.ts. */
export interface ApiDeclaration {
  readonly name: string;
  readonly kind: 'interface' | 'type';
  /** its TSDoc comment, as written (empty when it has none) */
  readonly doc: string;
  /** the declaration itself, without `export` and without its comment */
  readonly text: string;
  /** an interface's members, in order */
  readonly members: readonly ApiMember[];
}

/** One member of an interface of script-api.ts. */
export interface ApiMember {
  readonly name: string;
  /** its TSDoc comment, as written, without indentation (empty when it has none) */
  readonly doc: string;
  /** the member's signature, e.g. `bone(name: string): Promise<ScriptBone>;` */
  readonly text: string;
  readonly method: boolean;
}

/**
 * The exported interfaces and types of script-api.ts (written as Prettier formats it: declarations at column 0, an
 * interface closed by `}` alone on a line, members indented by two spaces), host-only ones left out.
 * @throws Error naming the file and the line where a declaration does not end
 */
export function scriptApiDeclarations(source: string): ApiDeclaration[] {
  const lines = source.split(/\r?\n/);
  const found: ApiDeclaration[] = [];
  let doc: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('/**')) {
      doc = [];
      for (; i < lines.length; i++) {
        doc.push(lines[i]);
        if (lines[i].includes('*/')) break;
      }
      continue;
    }
    const head = /^export (interface|type) (\w+)/.exec(line);
    if (!head) {
      doc = [];
      continue;
    }
    const kind = head[1] as 'interface' | 'type';
    const start = i;
    const closes = kind === 'interface' ? (text: string) => text === '}' : (text: string) => text.trimEnd().endsWith(';');
    while (i < lines.length && !closes(lines[i])) i++;
    if (i === lines.length) throw new Error(`script-api.ts: the declaration of ${head[2]} at line ${start + 1} does not end`);
    const body = lines.slice(start, i + 1);
    body[0] = body[0].replace(/^export /, '');
    if (!HOST_ONLY.has(head[2]))
      found.push({
        name: head[2],
        kind,
        doc: doc.join('\n'),
        text: body.join('\n'),
        members: kind === 'interface' ? membersOf(body.slice(1, -1), head[2]) : [],
      });
    doc = [];
  }
  return found;
}

/** The members of an interface body (its lines between the braces). */
function membersOf(body: readonly string[], owner: string): ApiMember[] {
  const members: ApiMember[] = [];
  let doc: string[] = [];
  for (let i = 0; i < body.length; i++) {
    const line = body[i].replace(/^ {2}/, '');
    if (line.trim() === '') continue;
    if (line.startsWith('/**')) {
      doc = [];
      for (; i < body.length; i++) {
        doc.push(body[i].replace(/^ {2}/, ''));
        if (body[i].includes('*/')) break;
      }
      continue;
    }
    const signature: string[] = [];
    for (; i < body.length; i++) {
      signature.push(body[i].trim());
      if (body[i].trimEnd().endsWith(';')) break;
    }
    const text = signature.join(' ');
    const name = /^(?:readonly\s+)?('[^']+'|\w+)\??\s*([(:<])/.exec(text);
    if (!name) throw new Error(`script-api.ts: a member of ${owner} is not a property or a method: ${text}`);
    members.push({ name: name[1].replaceAll("'", ''), doc: doc.join('\n'), text, method: name[2] !== ':' });
    doc = [];
  }
  return members;
}
