/** The project as stored: a leaf that access.ts and projects.ts both read (so neither imports the other's types). */
export type { Project } from './project-entity.ts';
