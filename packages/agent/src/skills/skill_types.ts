/** Where a skill was found. */
export type SkillScope = 'project' | 'user' | 'import';

/** One skill found on disk (its body is read when the model asks for it). */
export interface Skill {
  /** The front matter's `name`, else the folder's name. */
  name: string;
  /** What the skill is for and when to use it: all the model sees until it loads the skill. */
  description: string;
  /** The absolute path of its `SKILL.md`. */
  path: string;
  /** The skill's folder: its other files are reachable from here. */
  dir: string;
  scope: SkillScope;
  /** The tools the skill may use without asking, as written (`Bash(git:*)`, `Read`). */
  allowed_tools?: readonly string[];
}

/** What skill discovery found: the skills, nearest first, and what could not be read. */
export interface SkillCatalog {
  skills: readonly Skill[];
  /** Each a sentence naming the file: a malformed `SKILL.md`, a name found twice. */
  warnings: readonly string[];
}
