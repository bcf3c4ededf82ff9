import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { Principal } from '../auth/authenticate.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { parseRequest } from '../endpoints/validation/parse.js';
import type { UnlockedVault, Vault } from '../vault/vault.js';
import { VaultError } from '../vault/vault.js';
import type { BlueprintInput, SkillSource } from './apply.js';
import { blueprintSchema, skillSchema, type Blueprint, type Skill } from './documents.js';

/** The request fields that bring blueprints and skills (chat body, or a surface translated onto chat). */
export interface BlueprintFields {
  blueprint_id?: string | undefined;
  blueprint_config?: Record<string, unknown> | undefined;
  variables?: Record<string, unknown> | undefined;
  skill_ids?: string[] | undefined;
  skill_configs?: Array<Record<string, unknown>> | undefined;
}

const FIELD_NAMES = ['blueprint_id', 'blueprint_config', 'variables', 'skill_ids', 'skill_configs'] as const;

/** Separates the blueprint fields from a surface body, so the rest translates (and passes through natively) untouched. */
export function splitBlueprintFields<Body extends BlueprintFields>(body: Body): { fields: BlueprintFields; rest: Omit<Body, keyof BlueprintFields> } {
  const rest = { ...body } as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const name of FIELD_NAMES) {
    if (rest[name] !== undefined) fields[name] = rest[name];
    delete rest[name];
  }
  return { fields: fields as BlueprintFields, rest: rest as Omit<Body, keyof BlueprintFields> };
}

export function usesBlueprints(fields: BlueprintFields): boolean {
  return (
    fields.blueprint_id !== undefined ||
    fields.blueprint_config !== undefined ||
    fields.variables !== undefined ||
    (fields.skill_ids !== undefined && fields.skill_ids.length > 0) ||
    (fields.skill_configs !== undefined && fields.skill_configs.length > 0)
  );
}

/** An inline document validated like the request itself, with details.field inside it (`blueprint_config.railguards.input[0].pattern`). */
export function parseDocument<Schema extends z.ZodType>(schema: Schema, value: unknown, field: string): z.output<Schema> {
  try {
    return parseRequest(schema, value);
  } catch (error) {
    if (!isGatewayError(error)) throw error;
    const inner = typeof error.details?.['field'] === 'string' ? error.details['field'] : 'body';
    const outer = inner === 'body' ? field : `${field}${inner.startsWith('[') ? '' : '.'}${inner}`;
    const message = inner === 'body' ? error.message.replace('The request body', `"${field}"`).replace('"body"', `"${field}"`) : error.message.split(`"${inner}"`).join(`"${outer}"`);
    throw new GatewayError(error.code, message, { ...error.details, field: outer });
  }
}

export interface VaultAccess {
  principal: Principal;
  headers: IncomingHttpHeaders;
  vault: Vault;
}

/**
 * Opens the caller's vault for loading by id. Rules (README "Vault"):
 *  - the API key needs vault access (`igw keys create --vault`), else AUTH_1015 (403);
 *  - the `X-Vault-Key` header must be present, else AUTH_1007 (401);
 *  - it must open the account's vault, else AUTH_1008 (401).
 * An account without a vault has nothing to load: RESOURCE_5404 for the id asked for.
 */
async function openVault(access: VaultAccess, field: string, id: string): Promise<UnlockedVault> {
  if (!access.principal.vaultAccess) {
    throw new GatewayError('AUTH_1015', `Loading "${field}" from the vault needs an API key with vault access: create one with \`igw keys create --vault\`.`, { required: 'vault_access', field });
  }
  const header = access.headers['x-vault-key'];
  const secret = (Array.isArray(header) ? header[0] : header)?.trim();
  if (secret === undefined || secret === '') {
    throw new GatewayError('AUTH_1007', `No vault key: "${field}" loads from the vault, send the account's vault key in the X-Vault-Key header (or send the document inline instead).`, { header: 'X-Vault-Key', field });
  }
  try {
    return await access.vault.unlock(access.principal.account, secret);
  } catch (error) {
    if (error instanceof VaultError && error.reason === 'wrong-key') {
      throw new GatewayError('AUTH_1008', `Wrong vault key: the X-Vault-Key header does not open the vault of account "${access.principal.account}".`, { header: 'X-Vault-Key', field });
    }
    if (error instanceof VaultError && error.reason === 'no-vault') {
      throw new GatewayError('RESOURCE_5404', `No such ${field.startsWith('skill') ? 'skill' : 'blueprint'} "${id}": account "${access.principal.account}" has no vault yet (create one with \`igw blueprints create FILE\`).`, { field });
    }
    throw error;
  }
}

/**
 * Everything the blueprint engine needs from a request: the blueprint (`blueprint_config` wins
 * over `blueprint_id`, which is then not even loaded), the skills (inline ones first, then those
 * by id) and the variables. Nothing is sent upstream before this succeeds.
 */
export async function loadBlueprintInput(fields: BlueprintFields, access: VaultAccess): Promise<BlueprintInput> {
  let vault: UnlockedVault | undefined;
  const unlocked = async (field: string, id: string) => (vault ??= await openVault(access, field, id));

  let blueprint: Blueprint | undefined;
  if (fields.blueprint_config !== undefined) {
    blueprint = parseDocument(blueprintSchema, fields.blueprint_config, 'blueprint_config');
  } else if (fields.blueprint_id !== undefined) {
    const item = (await unlocked('blueprint_id', fields.blueprint_id)).get<Blueprint>('blueprint', fields.blueprint_id);
    if (item === undefined) throw new GatewayError('RESOURCE_5404', `No blueprint "${fields.blueprint_id}" in the vault of account "${access.principal.account}" (list them with \`igw blueprints list\`).`, { field: 'blueprint_id' });
    blueprint = item.document;
  }

  const skills: SkillSource[] = [];
  fields.skill_configs?.forEach((config, index) => {
    const field = `skill_configs[${index}]`;
    skills.push({ field, skill: parseDocument(skillSchema, config, field) });
  });
  for (const [index, id] of (fields.skill_ids ?? []).entries()) {
    const field = `skill_ids[${index}]`;
    const item = (await unlocked(field, id)).get<Skill>('skill', id);
    if (item === undefined) throw new GatewayError('RESOURCE_5404', `No skill "${id}" in the vault of account "${access.principal.account}" (list them with \`igw skills list\`).`, { field });
    skills.push({ field, skill: item.document });
  }
  return { blueprint, skills, variables: fields.variables };
}
