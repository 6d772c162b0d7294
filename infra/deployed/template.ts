import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A JSON object from a template or an AWS request: CloudFormation properties have a shape per resource type and
 * request inputs one per operation, so each reader checks the fields it uses.
 */
// biome-ignore lint/suspicious/noExplicitAny: the shape varies per resource type or operation (see above)
export type Json = Record<string, any>;

/** A CloudFormation resource as `cdk synth` writes it. */
export interface Resource {
  Type: string;
  Properties?: Json;
  Metadata?: Record<string, unknown>;
}

/** A synthesized stack: its template and the cloud assembly folder its assets live in. */
export interface CloudAssembly {
  dir: string;
  stackName: string;
  resources: Record<string, Resource>;
}

/** Reads the (single) stack of a cloud assembly: `cdk.out/manifest.json` names its template. */
export function readAssembly(dir: string, templateFile?: string): CloudAssembly {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const [stackName, artifact] =
    Object.entries(manifest.artifacts).find(([, a]) => a.type === 'aws:cloudformation:stack') ?? [];
  if (!stackName || !artifact?.properties?.templateFile) throw new Error(`${dir} holds no CloudFormation stack`);
  const template = JSON.parse(readFileSync(templateFile ?? join(dir, artifact.properties.templateFile), 'utf8')) as {
    Resources: Record<string, Resource>;
  };
  return { dir, stackName, resources: template.Resources };
}

/** The logical ids and resources of one type, in template order. */
export function resourcesOf(assembly: CloudAssembly, type: string): [string, Resource][] {
  return Object.entries(assembly.resources).filter(([, r]) => r.Type === type);
}

/** The folder of a file asset by its S3 key (`<hash>.zip`): `cdk.out/asset.<hash>` (or the zip itself). */
export function assetPath(assembly: CloudAssembly, s3Key: string): string {
  const hash = s3Key.replace(/\.zip$/, '');
  const dir = join(assembly.dir, `asset.${hash}`);
  if (existsSync(dir)) return dir;
  throw new Error(`asset ${s3Key} is not in ${assembly.dir} (a zipped asset is not supported)`);
}

/** `{ Ref: id }` / `{ Fn::GetAtt: [id, attr] }` → the logical id it names. */
export function referencedId(value: unknown): string | undefined {
  if (value && typeof value === 'object') {
    const v = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
    return v.Ref ?? v['Fn::GetAtt']?.[0];
  }
  return undefined;
}
