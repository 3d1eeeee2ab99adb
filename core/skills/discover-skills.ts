import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { join } from '../../adapters/fs/posix-path.ts';
import { compareCodeUnits } from '../text/code-units.ts';
import { parseFrontmatter } from './frontmatter.ts';

export type SkillSource = 'project' | 'user';

export interface Skill {
  name: string;
  description: string;
  /** Absolute path of the SKILL.md (under the skills folder, links not resolved). */
  path: string;
  source: SkillSource;
}

/** Frontmatter sits at the top; a SKILL.md's head is all we read, so a huge file costs nothing. */
const SKILL_HEAD_BYTES = 256 * 1024;

/**
 * Claude Code skills (docs/ori.md#skills): every `<folder>/SKILL.md` in `<root>/.claude/skills` (project) and
 * `<home>/.claude/skills` (user). A missing or unreadable skills folder contributes nothing; so does a sub-folder
 * without a readable SKILL.md. Skill folders may be symlinks (they are followed). A project skill shadows a user
 * skill with the same name. Sorted by name (code-unit order), then path.
 */
export async function discoverSkills(fs: FileSystem, root: string, home: string | undefined): Promise<Skill[]> {
  const [project, user] = await Promise.all([
    skillsIn(fs, join(root, '.claude/skills'), 'project'),
    home === undefined ? Promise.resolve([]) : skillsIn(fs, join(home, '.claude/skills'), 'user'),
  ]);
  const projectNames = new Set(project.map((skill) => skill.name));
  const skills = [...project, ...user.filter((skill) => !projectNames.has(skill.name))];
  return skills.sort((a, b) => compareCodeUnits(a.name, b.name) || compareCodeUnits(a.path, b.path));
}

async function skillsIn(fs: FileSystem, folder: string, source: SkillSource): Promise<Skill[]> {
  let entries;
  try {
    entries = await fs.readdir(folder);
  } catch (error) {
    if (isFsError(error)) return [];
    throw error;
  }
  const found = await Promise.all(
    entries
      .filter((entry) => entry.type === 'dir' || entry.type === 'symlink')
      .map((entry) => readSkill(fs, join(folder, entry.name), entry.name, source)),
  );
  return found.filter((skill): skill is Skill => skill !== null);
}

async function readSkill(fs: FileSystem, folder: string, folderName: string, source: SkillSource): Promise<Skill | null> {
  const path = join(folder, 'SKILL.md');
  let bytes: Uint8Array;
  try {
    bytes = await fs.read(path, { offset: 0, length: SKILL_HEAD_BYTES });
  } catch (error) {
    if (isFsError(error)) return null; // no SKILL.md, not a folder, unreadable, a folder named SKILL.md…
    throw error;
  }
  return { ...skillMetadata(new TextDecoder().decode(bytes), folderName), path, source };
}

/**
 * `name` and `description` from a SKILL.md's frontmatter: a missing (or empty) name falls back to the
 * folder's name, a missing description to "".
 */
export function skillMetadata(text: string, folderName: string): { name: string; description: string } {
  const frontmatter = parseFrontmatter(text);
  const name = frontmatter?.get('name');
  return {
    name: name === undefined || name === '' ? folderName : name,
    description: frontmatter?.get('description') ?? '',
  };
}
