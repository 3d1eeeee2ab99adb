/**
 * The version the API documents carry (`/openapi.json`, `/ws/protocol.json`): the package's. A module of its own so
 * the `/ws` protocol document can name it without loading every route's docs; test/runtime/openapi checks it
 * against package.json.
 */
export const API_VERSION = '0.1.0';
