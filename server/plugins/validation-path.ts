/**
 * How a schema validation failure is told to a client: the JSON path of the offending
 * field — `/body/minutez`, `/querystring/limit`, `/body/keys/0/model` — and what is wrong
 * with it in a few words. Ajv puts the field in `instancePath` for a wrong value, but for
 * an unknown property or a missing one the path is the parent's and the field's name is in
 * `params` (`additionalProperty`, `missingProperty`); both are joined here so every route
 * names the field, whatever keyword refused it.
 */

/** The parts of an Ajv error this reads (fastify's `FastifyError.validation` items). */
export interface ValidationItem {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** The field's JSON path and the sentence a client reads. */
export interface ValidationFault {
  path: string;
  message: string;
}

/** An escaped JSON Pointer token (RFC 6901): `~` and `/` in a property's name stay readable as one segment. */
const token = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Names the field of the first validation error (`all`: fastify's `validation` list). `where` is fastify's
 * `validationContext` (`body`, `querystring`, `params`, `headers`).
 */
export function validationFault(where: string, all: readonly ValidationItem[] | undefined): ValidationFault {
  const first = all?.[0];
  const base = `/${where}${first?.instancePath ?? ''}`;
  const p = first?.params ?? {};
  let path = base;
  let what = first?.message ?? 'is invalid';
  switch (first?.keyword) {
    case 'additionalProperties':
      if (typeof p.additionalProperty === 'string') path = `${base}/${token(p.additionalProperty)}`;
      what = 'unknown property';
      break;
    case 'required':
      if (typeof p.missingProperty === 'string') path = `${base}/${token(p.missingProperty)}`;
      what = 'is required';
      break;
    case 'enum':
      if (Array.isArray(p.allowedValues)) what = `must be one of ${p.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
      break;
    case 'const': {
      // A TypeBox union of literals: Ajv reports each branch's const, then the anyOf; name them all.
      const same = (all ?? []).filter((e) => e.instancePath === first.instancePath);
      const consts = same.filter((e) => e.keyword === 'const').map((e) => e.params?.allowedValue);
      what = same.some((e) => e.keyword === 'anyOf') && consts.length > 1
        ? `must be one of ${consts.map((v) => JSON.stringify(v)).join(', ')}`
        : `must be ${JSON.stringify(p.allowedValue)}`;
      break;
    }
    case 'dependencies':
    case 'dependentRequired':
      if (typeof p.missingProperty === 'string') path = `${base}/${token(p.missingProperty)}`;
      break;
    case 'propertyNames':
      if (typeof p.propertyName === 'string') path = `${base}/${token(p.propertyName)}`;
      break;
    default:
      break;
  }
  return { path, message: `${path}: ${what}` };
}
