import type { ApprovalMode } from '../host/session_host_types.js';
import { EXIT_PLAN_TOOL } from '../toolbox/exit_plan_mode.js';
import {
  escape_pattern,
  type PermissionRule,
  parse_rule,
  type RuleEffect,
  rule_argument,
  rule_matches,
  tool_kind,
  URL_TOOLS,
} from './permission_rules.js';

/** The `permissions` key of the config. */
export interface PermissionsConfig {
  /** The approval mode when none is given (the CLI's flags and a host's sessions override it). */
  readonly mode?: ApprovalMode;
  readonly allow?: readonly string[];
  readonly ask?: readonly string[];
  readonly deny?: readonly string[];
}

/** Answers remembered for one session (`allow_always`, `reject_always`), as rules. */
export interface RememberedAnswers {
  allow: PermissionRule[];
  deny: PermissionRule[];
}

/** What the policy says of one call, and why. */
export interface PolicyDecision {
  decision: 'allow' | 'ask' | 'deny';
  /** `rule`: a config rule; `session`: an answer remembered for the session; `mode`: the mode. */
  source: 'rule' | 'session' | 'mode';
  /** The rule that decided, as written. */
  rule?: string;
}

/** A new, empty memory of answers. */
export function remembered_answers(): RememberedAnswers {
  return { allow: [], deny: [] };
}

function one_line(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= limit ? flat : `${flat.slice(0, limit - 1)}…`;
}

/**
 * Decides whether a tool call may run: `allow`, `deny` or `ask` (a person decides).
 *
 * Contract, in this order (the first that applies wins):
 * 1. a `deny` rule of the config matches → deny (in every mode, `yolo` too);
 * 2. a `reject_always` answer of the session matches → deny; an `allow_always` one → allow;
 * 3. an `ask` rule matches → ask (`yolo`: allow);
 * 4. an `allow` rule matches → allow;
 * In `plan` mode, after the deny rules and before everything else: reads (and `todo_write`) are
 * allowed, `exit_plan_mode` is asked (it shows the plan), `web_fetch` is judged as in `default`,
 * and every other call is denied by the mode (`source: 'mode'`), whatever an allow rule or a
 * remembered answer says: nothing changes until the user approved a plan.
 * 5. the mode: `yolo` allows everything; reads (`read_file`, `list_dir`, `glob`, `grep`) are
 *    allowed in every mode; file edits (`write_file`, `edit_file`) are allowed in `auto_edit`
 *    and asked in `default`; every other tool (`terminal`, `run_tests`, MCP and plugin tools) is
 *    asked.
 * Rules are parsed when the policy is built (a bad one throws a `TypeError` naming it); `decide`
 * never throws.
 */
export class PermissionPolicy {
  readonly work_dir: string;
  readonly default_mode: ApprovalMode | undefined;
  readonly #rules: Record<RuleEffect, PermissionRule[]>;

  constructor(config: PermissionsConfig | undefined, work_dir: string) {
    this.work_dir = work_dir;
    this.default_mode = config?.mode;
    this.#rules = {
      allow: (config?.allow ?? []).map(parse_rule),
      ask: (config?.ask ?? []).map(parse_rule),
      deny: (config?.deny ?? []).map(parse_rule),
    };
  }

  #first(rules: readonly PermissionRule[], effect: RuleEffect, tool: string, args: unknown) {
    return rules.find((rule) => rule_matches(rule, effect, tool, args, this.work_dir));
  }

  decide(
    tool: string,
    args: unknown,
    mode: ApprovalMode,
    remembered: RememberedAnswers = remembered_answers(),
  ): PolicyDecision {
    const denied = this.#first(this.#rules.deny, 'deny', tool, args);
    if (denied) return { decision: 'deny', source: 'rule', rule: denied.text };
    if (mode === 'plan') {
      if (tool === EXIT_PLAN_TOOL) return { decision: 'ask', source: 'mode' };
      if (tool_kind(tool) === 'read') return { decision: 'allow', source: 'mode' };
      if (!URL_TOOLS.has(tool)) return { decision: 'deny', source: 'mode' };
      return this.decide(tool, args, 'default', remembered);
    }
    // outside plan mode there is no plan to approve: the tool says so
    if (tool === EXIT_PLAN_TOOL) return { decision: 'allow', source: 'mode' };
    const rejected = this.#first(remembered.deny, 'deny', tool, args);
    if (rejected) return { decision: 'deny', source: 'session', rule: rejected.text };
    const kept = this.#first(remembered.allow, 'allow', tool, args);
    if (kept) return { decision: 'allow', source: 'session', rule: kept.text };
    const asked = this.#first(this.#rules.ask, 'ask', tool, args);
    if (asked && mode !== 'yolo') return { decision: 'ask', source: 'rule', rule: asked.text };
    const allowed = this.#first(this.#rules.allow, 'allow', tool, args);
    if (allowed) return { decision: 'allow', source: 'rule', rule: allowed.text };
    if (mode === 'yolo') return { decision: 'allow', source: 'mode' };
    const kind = tool_kind(tool);
    if (kind === 'read' || (kind === 'edit' && mode === 'auto_edit')) {
      return { decision: 'allow', source: 'mode' };
    }
    return { decision: 'ask', source: 'mode' };
  }

  /** One line for a person: `terminal: git push`, `write_file: docs/a.md`, `mcp_x_y {"q":1}`. */
  title(tool: string, args: unknown): string {
    if (tool === EXIT_PLAN_TOOL) return `${tool}: approve the plan and leave plan mode`;
    const argument = rule_argument(tool, args, this.work_dir);
    if (argument !== undefined) return `${tool}: ${one_line(argument, 200)}`;
    let text = '';
    try {
      text = JSON.stringify(args) ?? '';
    } catch {
      text = '';
    }
    return text === '' || text === '{}' ? tool : `${tool} ${one_line(text, 200)}`;
  }

  /**
   * The rule an `allow_always` / `reject_always` answer remembers: the exact command or path
   * (`terminal(git push origin main)`), or the bare tool name for other tools.
   */
  rule_for(tool: string, args: unknown): string {
    const argument = rule_argument(tool, args, this.work_dir);
    return argument === undefined ? tool : `${tool}(${escape_pattern(argument)})`;
  }
}
