/**
 * The MCP server's tools, by name: what `coderag mcp --help` and its start-up line list, and what server.ts
 * registers (a test holds the two equal). A module of its own so the CLI can name them without loading the SDK.
 */
export const MCP_TOOLS = ['search_code_references', 'get_indexes_overview', 'search', 'get_file_outline', 'find_symbol'] as const;
export type McpToolName = (typeof MCP_TOOLS)[number];
