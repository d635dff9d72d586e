import { z } from 'zod';

/** The user-level skill folders of other harnesses, by the name `skills.import` gives them. */
export const SKILL_IMPORTS: Readonly<Record<string, string>> = Object.freeze({
  claude: '~/.claude/skills',
  codex: '~/.codex/skills',
  agents: '~/.agents/skills',
  gemini: '~/.gemini/skills',
});

/** The `skills` key: whether skills are offered, and which other folders to take them from. */
export const SKILLS_SCHEMA = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe('Offer the skills found (SKILL.md folders) to the model.'),
    import: z
      .array(z.string().min(1))
      .default([])
      .describe(
        "More skill folders, after the project's and ~/.config/lich/skills: claude (~/.claude/skills), codex (~/.codex/skills), agents (~/.agents/skills), gemini (~/.gemini/skills), or a path.",
      ),
  })
  .describe('Agent Skills (SKILL.md): found in .lich/skills, .agents/skills, .claude/skills.');

/** The `skills` key as parsed. */
export type SkillsSettings = z.infer<typeof SKILLS_SCHEMA>;

/** The `skills` key's default. */
export const DEFAULT_SKILLS: SkillsSettings = Object.freeze({ enabled: true, import: [] });
