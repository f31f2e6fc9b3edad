// Drives host-example's MCP server with the official TypeScript SDK over
// stdio. The same line protocol as client.py: one JSON command per stdin
// line, one JSON answer per stdout line.
//
//   {"op": "list"}                                  -> {"tools": [...], "pages": n}
//   {"op": "call", "name": "...", "arguments": {}}  -> the CallToolResult as JSON
//
// Usage: node client.mjs COMMAND [ARG...]
import { createInterface } from "node:readline";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "host-example-typescript-test", version: "1.0.0" });
await client.connect(transport);

const emit = (value) => process.stdout.write(JSON.stringify(value) + "\n");

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { op, name, arguments: callArguments } = JSON.parse(line);
  if (op === "list") {
    const tools = [];
    let cursor;
    let pages = 0;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      pages += 1;
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    emit({ tools, pages });
  } else if (op === "call") {
    emit(await client.callTool({ name, arguments: callArguments ?? {} }));
  } else {
    emit({ error: `unknown op ${op}` });
  }
}
await client.close();
