import { GatewayError } from '../errors/gateway-error.js';
import type { Blueprint } from './documents.js';

/**
 * The values a blueprint renders with: request `variables` over declared defaults. A required
 * variable without a value → VALIDATION_4002 naming it; an undeclared request variable or a
 * value that is not a string, number or boolean → VALIDATION_4005 (a typo must not pass silently).
 * A variable that is neither required nor has a default renders as the empty string.
 */
export function resolveVariables(blueprint: Blueprint, given: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const declared = blueprint.variables ?? {};
  for (const [name, value] of Object.entries(given ?? {})) {
    if (!Object.hasOwn(declared, name)) {
      const known = Object.keys(declared);
      throw new GatewayError('VALIDATION_4005', `Unknown variable "${name}": the blueprint "${blueprint.name}" declares ${known.length === 0 ? 'no variables' : known.map((known) => `"${known}"`).join(', ')}.`, { field: `variables.${name}` });
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new GatewayError('VALIDATION_4005', `Invalid value for "variables.${name}": use a string, number or boolean.`, { field: `variables.${name}` });
    }
  }
  const values: Record<string, string> = {};
  for (const [name, declaration] of Object.entries(declared)) {
    const value = given?.[name] ?? declaration.default;
    if (value === undefined) {
      if (declaration.required === true) {
        throw new GatewayError('VALIDATION_4002', `Missing required variable "${name}" of blueprint "${blueprint.name}": send it in "variables".`, { field: `variables.${name}` });
      }
      values[name] = '';
    } else {
      values[name] = String(value);
    }
  }
  return values;
}
