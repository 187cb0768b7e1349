import { AppError, messageOf, type CatalogueModule } from '../errors/catalogue.js';

/*
 * Schema validation failures become catalogue errors. A property schema may
 * carry `x-code` (the code for a malformed value, e.g. 1005 for a contact
 * number, 1001 for a DNC date) and `x-missing-code` (the code when it is
 * absent); without them both are 1000 (PRODUCT.md §3).
 */

export const CODE_KEYWORDS = ['x-code', 'x-missing-code'];

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

type SchemaNode = { properties?: Record<string, SchemaNode>; items?: SchemaNode; 'x-code'?: number; 'x-missing-code'?: number; anyOf?: SchemaNode[] };

function child(node: SchemaNode | undefined, segment: string): SchemaNode | undefined {
  if (!node) return undefined;
  if (node.properties?.[segment]) return node.properties[segment];
  if (node.items && /^\d+$/.test(segment)) return node.items;
  for (const alt of node.anyOf ?? []) {
    const found = child(alt, segment);
    if (found) return found;
  }
  return undefined;
}

/** The deepest `x-code` along the path to the failing value, or 1000. */
function codeAt(root: SchemaNode, segments: string[], missing: boolean): number {
  let node: SchemaNode | undefined = root;
  let code = 1000;
  segments.forEach((segment, i) => {
    node = child(node, segment);
    const last = i === segments.length - 1;
    if (node?.['x-code'] !== undefined && !(last && missing)) code = node['x-code'];
    if (last && missing && node?.['x-missing-code'] !== undefined) code = node['x-missing-code'];
  });
  return code;
}

export function validationError(errors: AjvError[], bodySchema: unknown, module: CatalogueModule): AppError {
  const first = errors[0]!;
  const segments = first.instancePath
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const missing = first.keyword === 'required';
  if (missing) segments.push(String(first.params.missingProperty));
  const code = codeAt((bodySchema ?? {}) as SchemaNode, segments, missing);
  const field = segments.join('.') || 'body';
  const detail = missing ? `${field} is required` : `${field} ${describe(first)}`;
  return new AppError(code, `${messageOf(code, module)}: ${detail}`);
}

function describe(e: AjvError): string {
  switch (e.keyword) {
    case 'type':
      return `must be ${String(e.params.type)}`;
    case 'anyOf':
      return 'has the wrong type';
    case 'enum':
      return `must be one of ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`;
    default:
      return e.message ?? 'is invalid';
  }
}
