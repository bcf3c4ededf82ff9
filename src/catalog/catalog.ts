import type { Config } from '../config/load.js';
import type { Flavor, ModelConfig, ModelType, PlanConfig } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import { modelOffersFlavor } from '../routing/select.js';
import { parseModelName } from '../routing/model-name.js';
import { didYouMean } from '../util/did-you-mean.js';

export interface ResolvedModel {
  id: string;
  requested: string;
  flavor: Flavor | null;
  model: ModelConfig;
}

/** The model catalog as the plan sees it: lookup, visibility, plan gating, flavor validation. */
export class Catalog {
  constructor(private readonly config: Config) {}

  /** Models with at least one enabled provider. */
  activeModels(): Array<[string, ModelConfig]> {
    return Object.entries(this.config.models).filter(([, model]) => this.isActive(model));
  }

  /** One model of activeModels() by id (an own key of the config, not an inherited name). */
  private activeModel(id: string): [string, ModelConfig] | undefined {
    if (!Object.hasOwn(this.config.models, id)) return undefined;
    const model = this.config.models[id]!;
    return this.isActive(model) ? [id, model] : undefined;
  }

  private isActive(model: ModelConfig): boolean {
    return model.routes.some((route) => this.config.providers[route.provider]?.enabled === true);
  }

  visibleTo(plan: PlanConfig): Array<[string, ModelConfig]> {
    return this.activeModels().filter(([, model]) => !model.advanced || plan.benefits.includes('advanced_models'));
  }

  /** Resolves a client model string for a plan; throws INFERENCE_3001 / VALIDATION_4003. */
  resolve(requested: string, plan: PlanConfig, planName: string, expectedTypes?: readonly ModelType[]): ResolvedModel {
    const name = parseModelName(requested);
    // By key: every model call resolves, and listing the active models each time costs more than the rest of the stage.
    const entry = this.activeModel(name.id);
    if (entry === undefined) {
      // Suggest only among the models this plan sees: an advanced model is not a hint to give.
      const visible = this.visibleTo(plan).map(([id]) => id);
      const suggestion = didYouMean(name.id, visible);
      throw new GatewayError('INFERENCE_3001', `Unknown model "${requested}".${suggestion} List the available models with GET /v1/models (or \`igw models\`).`, { model: requested });
    }
    const [id, model] = entry;
    if (name.flavor !== null && !modelOffersFlavor(model, name.flavor)) {
      const offered = [...new Set(model.routes.flatMap((route) => route.flavors))].map((flavor) => `"${id}:${flavor}"`);
      const instead = offered.length === 0 ? `use "${id}" without a suffix` : `use "${id}" or ${offered.join(', ')}`;
      throw new GatewayError('INFERENCE_3001', `Unknown model "${requested}": model "${id}" has no route for the :${name.flavor} flavor; ${instead}.`, { model: requested });
    }
    if (expectedTypes !== undefined && !expectedTypes.includes(model.type)) {
      throw new GatewayError('VALIDATION_4005', `Model "${id}" is a ${model.type} model; this endpoint needs a ${expectedTypes.join(' or ')} model.`, { field: 'model' });
    }
    if (model.advanced && !plan.benefits.includes('advanced_models')) {
      const planWithIt = Object.entries(this.config.plans).find(([, candidate]) => candidate.benefits.includes('advanced_models'))?.[0];
      throw new GatewayError(
        'VALIDATION_4003',
        `Model "${id}" is an advanced model and plan "${planName}" does not include advanced_models${planWithIt === undefined ? '' : `; plan "${planWithIt}" does`}.`,
        { benefit: 'advanced_models', plan: planName, ...(planWithIt === undefined ? {} : { required_plan: planWithIt }) },
      );
    }
    return { id, requested, flavor: name.flavor, model };
  }

  /** First active model of a type (default image model etc.). */
  firstOfType(type: ModelType, plan: PlanConfig): string | undefined {
    return this.visibleTo(plan).find(([, model]) => model.type === type)?.[0];
  }
}
