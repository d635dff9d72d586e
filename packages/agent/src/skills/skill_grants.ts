import type { RememberedAnswers } from '../permissions/permission_policy.js';
import { parse_rule } from '../permissions/permission_rules.js';
import { lich_permission_rules } from './claude_tool_names.js';
import type { SkillGrants } from './skill_tool.js';
import type { Skill } from './skill_types.js';

/**
 * The grant of a loaded skill's `allowed-tools` into a session's `remembered` answers, as Lich
 * rules (Claude's tool names mapped): a project's skill grants nothing until the folder is
 * trusted. The returned function says which rules it granted; an entry that is no rule is a
 * warning.
 */
export function skill_grants(
  remembered: RememberedAnswers,
  trusted: boolean,
  warn: (text: string) => void,
): SkillGrants {
  return (skill: Skill) => {
    if (skill.allowed_tools === undefined) return [];
    if (skill.scope === 'project' && !trusted) return [];
    const granted: string[] = [];
    for (const entry of skill.allowed_tools) {
      for (const rule of lich_permission_rules(entry)) {
        try {
          remembered.allow.push(parse_rule(rule));
          granted.push(rule);
        } catch {
          warn(`skill ${skill.path}: allowed-tools entry '${entry}' is not a tool rule; ignored`);
        }
      }
    }
    return granted;
  };
}
