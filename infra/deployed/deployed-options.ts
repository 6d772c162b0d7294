/** What start:deployed is given: the cloud assembly, where it listens and keeps its data, and what it lets the functions see. */
export interface DeployedOptions {
  /** The cloud assembly folder (`cdk.out`), or its synthesis under way (DynamoDB Local starts meanwhile), and, optionally, another template file to serve from it (a test's edited copy). */
  cdkOut: string | Promise<string>;
  templateFile?: string;
  /** `PORT` (0: any free port). */
  port: number;
  /** Outbox, DynamoDB Local's and s3rver's files (`LOCAL_DATA_DIR`). */
  dataDir: string;
  /** A running DynamoDB Local; else one is started (on `dynamoPort`, data under dataDir unless `inMemory`). */
  dynamoEndpoint?: string;
  /** Before every table's name (its logical id): runs sharing one DynamoDB Local each keep their own tables. */
  tablePrefix?: string;
  dynamoPort?: number;
  inMemory?: boolean;
  /** The site's public address (`APP_BASE_URL`); default `http://localhost:<port>`. */
  siteUrl?: string;
  /** Secrets the run holds besides the template's (the bootstrap admin's), by ARN. */
  extraSecrets?: Record<string, string>;
  /** IAM denials fail the call (default) or are only logged. */
  enforceIam?: boolean;
  /** Where functions' and stand-ins' lines go. */
  log?: (line: string) => void;
  /**
   * What start:deployed was started with: the functions get its TESTER_OVERRIDES; the run itself reads
   * `DEPLOYED_VISIBILITY_SCALE` (every queue's visibility timeout scaled, so a failing message reaches its
   * dead-letter queue in seconds), `DEPLOYED_STREAM_BACKOFF_SCALE` (the table stream's retry back-off scaled, so a
   * batch its function keeps failing goes to its OnFailure queue sooner) and `FAULTS`/`FAULTS_SEED` (the SQS
   * stand-in's queue faults).
   */
  env?: NodeJS.ProcessEnv;
}
