import { LRUCache } from 'lru-cache';
import { constantsSignature } from '../../core/engine/numeric-shape.js';

/** Remembered identities and groups, each up to this many bytes (strings count twice their length). */
const MAX_BYTES = 16 * 1024 * 1024;
/** Distinct plans remembered per group of texts; the oldest goes first (its texts then only miss). */
const MAX_PLANS_PER_GROUP = 256;

/** The texts seen that write one set of constants (numeric-shape.ts: `constantsSignature`). */
interface ConstantsGroup {
  /** The group's first text: keyed by its text alone, planned only once a second text comes. */
  readonly first: string;
  /** The first text's plan, being added to `byPlan` (set when the second text comes). */
  firstPlanned: Promise<void> | undefined;
  /** Plan → the identity the texts with that plan share. */
  readonly byPlan: Map<string, string>;
  bytes: number;
}

/**
 * What identifies a statement text under `cache_key_type: plan`: texts with the same logical
 * plan share an entry, and a text is planned only when that can matter.
 *
 * A plan costs the engine a parse and bind (0.2–0.4 ms), as much as a small query itself, and
 * most new texts are new because their constants are (`WHERE order_id = 1234`): their plan
 * holds those constants, so no earlier text can share it. A text is therefore grouped by the
 * constants it writes. The first text of a group is keyed by its text, unplanned; when a
 * second text writes the same constants, both are planned (the first once), and a text whose
 * plan matches an earlier one takes that one's identity, so it finds the entry the earlier
 * text stored. `SELECT status FROM orders` and `select  STATUS from main.orders` share an
 * entry as before; `... WHERE order_id = 1` and `... WHERE order_id = 2` are never planned.
 * A text the constants scanner cannot read (parameters, escape strings) is planned as before.
 *
 * Identities are sound either way (one is shared only by equal plans or equal texts); what
 * this gives up are hits between texts whose constants are written differently
 * (`ORDER BY 1` and `ORDER BY status`, `10` and `1e1`), and a group forgotten by the LRU
 * starts again from its next text.
 */
export class PlanIdentities {
  readonly #planText: (sql: string) => Promise<string>;
  readonly #identities = new LRUCache<string, string>({ maxSize: MAX_BYTES, sizeCalculation: (identity, sql) => (identity.length + sql.length) * 2 });
  readonly #groups = new LRUCache<string, ConstantsGroup>({ maxSize: MAX_BYTES, sizeCalculation: (group, signature) => group.bytes + signature.length * 2 });

  /** `planText` plans any text (the engine's stand-alone planner): a group's first text is planned after its request ended. */
  constructor(planText: (sql: string) => Promise<string>) {
    this.#planText = planText;
  }

  /** Whether `identity` would plan this text (the pipeline then starts its plan beside the prepare). */
  needsPlan(sql: string): boolean {
    if (this.#identities.has(sql)) return false;
    const signature = constantsSignature(sql);
    return signature === undefined || this.#groups.has(signature);
  }

  /** The text's identity; `planOfThis` plans it (the request's own plan, maybe started early). */
  async identity(sql: string, planOfThis: () => Promise<string>): Promise<string> {
    const known = this.#identities.get(sql);
    if (known !== undefined) return known;
    const signature = constantsSignature(sql);
    if (signature === undefined) return this.#remember(sql, planIdentity(sql, await planOrUndefined(planOfThis)));
    const group = this.#groups.get(signature);
    if (group === undefined || group.first === sql) {
      if (group === undefined) this.#groups.set(signature, { first: sql, firstPlanned: undefined, byPlan: new Map(), bytes: sql.length * 2 });
      return this.#remember(sql, textIdentity(sql));
    }
    group.firstPlanned ??= planOrUndefined(() => this.#planText(group.first)).then((plan) => {
      if (plan !== undefined) this.#add(signature, group, plan, textIdentity(group.first));
    });
    const [plan] = await Promise.all([planOrUndefined(planOfThis), group.firstPlanned]);
    if (plan === undefined) return this.#remember(sql, planIdentity(sql, undefined));
    const shared = group.byPlan.get(plan);
    if (shared !== undefined) return this.#remember(sql, shared);
    const identity = planIdentity(sql, plan);
    this.#add(signature, group, plan, identity);
    return this.#remember(sql, identity);
  }

  /** Forgets every identity and group (a dataset was refreshed: plans of `SELECT *` may change). */
  forget(): void {
    this.#identities.clear();
    this.#groups.clear();
  }

  #add(signature: string, group: ConstantsGroup, plan: string, identity: string): void {
    if (group.byPlan.has(plan)) return;
    if (group.byPlan.size >= MAX_PLANS_PER_GROUP) {
      const [oldestPlan, oldestIdentity] = group.byPlan.entries().next().value!;
      group.byPlan.delete(oldestPlan);
      group.bytes -= (oldestPlan.length + oldestIdentity.length) * 2;
    }
    group.byPlan.set(plan, identity);
    group.bytes += (plan.length + identity.length) * 2;
    // Set again so the LRU counts the group's new size (unless it was forgotten meanwhile).
    if (this.#groups.peek(signature) === group) this.#groups.set(signature, group);
  }

  #remember(sql: string, identity: string): string {
    this.#identities.set(sql, identity);
    return identity;
  }
}

function textIdentity(sql: string): string {
  return `text\u0000${sql}`;
}

/** A statement DuckDB cannot serialise a plan for still gets an identity: its exact text. */
function planIdentity(sql: string, plan: string | undefined): string {
  return plan === undefined ? `plan\u0000sql-text\u0000${sql}` : `plan\u0000${plan}`;
}

async function planOrUndefined(plan: () => Promise<string>): Promise<string | undefined> {
  try {
    return await plan();
  } catch {
    return undefined;
  }
}
