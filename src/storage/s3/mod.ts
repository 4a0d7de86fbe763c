/**
 * The S3 provider's public surface. Web-standard only (fetch + aws4fetch),
 * so it is safe to re-export from the runtime-neutral storage module.
 */
export { connectS3Bucket, createS3Storage, type S3Bucket, type S3Storage } from "./provider.ts";
export { S3ConditionsIgnoredError } from "./probe.ts";
export { S3ResponseError } from "./client.ts";
export { s3ConfigFromEnv, s3ConfigFromSpec, type S3Config } from "./config.ts";
