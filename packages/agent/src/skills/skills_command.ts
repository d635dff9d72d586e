import type { SlashCommand } from '../host/command_registry.js';
import type { SkillCatalog } from './skill_types.js';

/**
 * The skills as lines for a person: name, where it came from, description; then the warnings.
 * Pure.
 */
export function format_skills(catalog: SkillCatalog): string {
  const lines =
    catalog.skills.length === 0
      ? [
          'No skills found (looked in .lich/skills, .agents/skills, .claude/skills and ~/.config/lich/skills).',
        ]
      : catalog.skills.map(
          (skill) => `${skill.name}  (${skill.scope}: ${skill.path})\n    ${skill.description}`,
        );
  for (const warning of catalog.warnings) lines.push(`warning: ${warning}`);
  return lines.join('\n');
}

/** `/skills`: the skills found, and from where. */
export function skills_command(skills: () => Promise<SkillCatalog>): SlashCommand {
  return {
    name: 'skills',
    description: 'list the skills found, and from where',
    async run() {
      return { ok: true, output: format_skills(await skills()) };
    },
  };
}
