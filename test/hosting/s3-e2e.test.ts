/**
 * The hosting flow end to end against a real `toolwarden serve --workspaces
 * s3://BUCKET/PREFIX` process over a live S3 server (radosgw in CI:
 * scripts/s3-test.sh), each workspace a key prefix (checked in the bucket).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mintToken, secretBytes } from "../../src/cli/mint.ts";
import { startServe, type ServeProcess } from "../helpers/cli.ts";
import { runHostingFlow } from "../helpers/hosting-flow.ts";
import { deletePrefix, ensureBucket, liveS3Config, listKeys, prefixMaker } from "../helpers/s3-env.ts";
import { AwsClient } from "aws4fetch";

const live = liveS3Config();
const SECRET = "9a8b7c6d5e4f30211203f4e5d6c7b8a93f6c1d0e9a8b7c6d5e4f30211203f4e5";
const key = { alg: "HS256" as const, secret: secretBytes(SECRET) };

if (!live) {
  console.log("S3 hosting flow skipped: set S3_ENDPOINT (see scripts/s3-test.sh) or run npm run test:s3");
} else {
  const config = live;
  const prefix = prefixMaker("hosting")();

  /** Every object under the workspace's prefix as path -> text. */
  async function stored(ws: string): Promise<Record<string, string>> {
    const client = new AwsClient({ accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey, service: "s3", region: config.region });
    const tree: Record<string, string> = {};
    for (const k of await listKeys(config, `${prefix}${ws}/`)) {
      const response = await client.fetch(`${config.endpoint}/${config.bucket}/${k.split("/").map(encodeURIComponent).join("/")}`);
      tree[k.slice(`${prefix}${ws}/`.length)] = await response.text();
    }
    return tree;
  }

  describe("serve --workspaces s3://... (real process, live S3)", () => {
    let server: ServeProcess;
    beforeAll(async () => {
      await ensureBucket(config);
      const env = {
        TW_JWT: SECRET,
        S3_ENDPOINT: config.endpoint,
        S3_REGION: config.region,
        S3_ACCESS_KEY_ID: config.accessKeyId,
        S3_SECRET_ACCESS_KEY: config.secretAccessKey,
      };
      server = await startServe(["--workspaces", `s3://${config.bucket}/${prefix}`, "--jwt-secret-env", "TW_JWT", "--port", "0", "--quiet"], { env });
    });
    afterAll(async () => {
      server?.kill();
      await deletePrefix(config, prefix);
    });

    test("the seven steps, each workspace a key prefix", async () => {
      const now = Math.floor(Date.now() / 1000);
      await runHostingFlow(
        {
          url: server.url,
          admin: await mintToken(key, { workspace: "*", scopes: ["admin"], ttlSeconds: 3600 }),
          agent: (ws) => mintToken(key, { workspace: ws, scopes: ["read", "write"], ttlSeconds: 3600, label: "agent-s3" }),
          expired: (ws) => mintToken(key, { workspace: ws, scopes: ["read"], ttlSeconds: 60, now: now - 3600 }),
          stored,
        },
        "ws-s3",
      );
      expect(await listKeys(config, `${prefix}ws-s3/`)).toEqual([]);
    }, 60_000);
  });
}
