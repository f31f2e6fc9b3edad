// Drives host-example's MCP server with the official TypeScript SDK over
// stdio. The same line protocol as client.py: one JSON command per stdin
// line, one JSON answer per stdout line.
//
//   {"op": "list"}                                  -> {"tools": [...], "pages": n}
//   {"op": "call", "name": "...", "arguments": {}}  -> the CallToolResult as JSON
//
// Usage: node client.mjs COMMAND [ARG...]     (stdio: starts the server)
//        node client.mjs --http URL TOKEN      (Streamable HTTP, a bearer token)
// MCP_TEST_ANSWERS (JSON), when set, makes the client declare elicitation
// and sampling and answer the server's questions as client.py does:
// {"elicit": {"action": ..., "content": {...}}, "sample": "TEXT"}.
// Over HTTP the session is ended as an application ends it, with
// `terminateSession()` (a DELETE), when stdin closes.
import { createInterface } from "node:readline";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [command, ...args] = process.argv.slice(2);
const transport =
  command === "--http"
    ? new StreamableHTTPClientTransport(new URL(args[0]), {
        requestInit: { headers: { Authorization: `Bearer ${args[1]}` } },
      })
    : new StdioClientTransport({ command, args, stderr: "inherit" });
const answers = JSON.parse(process.env.MCP_TEST_ANSWERS ?? "null");
const client = new Client(
  { name: "host-example-typescript-test", version: "1.0.0" },
  answers === null ? {} : { capabilities: { elicitation: {}, sampling: {} } },
);
if (answers !== null) {
  client.setRequestHandler(ElicitRequestSchema, async () => answers.elicit);
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant",
    content: { type: "text", text: answers.sample },
    model: "typescript-test-model",
  }));
}
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
if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
await client.close();
