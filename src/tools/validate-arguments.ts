import { Ajv, type ValidateFunction } from 'ajv';
import { GatewayError } from '../errors/gateway-error.js';
import type { JsonSchemaObject } from './tool.js';

/**
 * Tool arguments checked against the tool's JSON Schema with ajv before anything runs, so a bad
 * call is a 400 naming the field instead of a confusing failure inside a tool. Schemas from MCP
 * servers may use keywords or drafts ajv does not compile: those are left to the server itself.
 */
const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
const compiled = new WeakMap<JsonSchemaObject, ValidateFunction | null>();

function validatorFor(schema: JsonSchemaObject): ValidateFunction | null {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    try {
      const { $schema: _draft, ...rest } = schema;
      validate = ajv.compile(rest);
    } catch {
      validate = null;
    }
    compiled.set(schema, validate);
  }
  return validate;
}

export function validateToolArguments(toolName: string, schema: JsonSchemaObject, args: unknown, fieldPrefix = 'arguments'): Record<string, unknown> {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new GatewayError('VALIDATION_4005', `${fieldPrefix} must be a JSON object for the tool "${toolName}".`, { field: fieldPrefix });
  }
  const validate = validatorFor(schema);
  if (validate !== null && !validate(args)) {
    const issue = validate.errors?.[0];
    const missing = issue?.keyword === 'required' ? String((issue.params as { missingProperty?: string }).missingProperty ?? '') : '';
    const pointer = (issue?.instancePath ?? '').split('/').filter((part) => part !== '').join('.');
    const field = [fieldPrefix, pointer, missing].filter((part) => part !== '').join('.');
    if (missing !== '') throw new GatewayError('VALIDATION_4002', `Missing required argument "${missing}" for the tool "${toolName}".`, { field });
    throw new GatewayError('VALIDATION_4005', `Invalid argument "${field}" for the tool "${toolName}": ${issue?.message ?? 'does not match the schema'}.`, { field });
  }
  return args as Record<string, unknown>;
}
