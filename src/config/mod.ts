/** The server configuration file: schema and loader. */
export { CONFIG_SCOPES, ConfigSchema, type Config, type ConfigInput, type ConfigToken } from "./schema.ts";
export { ConfigError, issuePath, loadConfig } from "./load.ts";
