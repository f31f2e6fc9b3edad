"""Drives host-example's MCP server with the official Python client.

A line protocol, so the Rust test decides what happens and checks every
answer: each line on stdin is one JSON command, each answer one JSON line
on stdout.

    {"op": "list"}                                  -> {"tools": [...], "pages": n}
    {"op": "call", "name": "...", "arguments": {}}  -> the CallToolResult as JSON
    {"op": "call_with_progress", "name": "...", "arguments": {}}
        -> {"result": the CallToolResult, "progress": [{"progress", "total", "message"}, ...]}
    {"op": "prompts"}                               -> {"prompts": [...]}
    {"op": "get_prompt", "name": "..."}             -> the GetPromptResult, or {"error": "..."}
    {"op": "listen"}                                -> {"listening": true}
    {"op": "wait_list_changed"}                     -> {"list_changed": true|false, "kind": "tools"|"prompts"}
    {"op": "info"}                                  -> {"protocol": "..."}

When the client cannot connect (over HTTP, a refused token), every command
is answered {"connect_error": "...", "http_statuses": [401, ...]}: the
statuses the HTTP client saw.

The environment variable MCP_TEST_ANSWERS (JSON), when set, makes the
client answer the server's questions (and declare the capabilities):
    {"elicit": {"action": "accept", "content": {...}}   the form's answer
     "sample": "TEXT",                                   the model's answer
     "roots": [{"uri": ..., "name": ...}],               the client's roots
     "delay": SECONDS}                                   wait before answering

Usage:
    client.py stdio MODE COMMAND [ARG...]
    client.py http MODE URL TOKEN
MODE is "auto" (server/discover, 2026-07-28, falling back to initialize)
or "legacy" (initialize, 2025-11-25).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys

import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.subscriptions import PromptsListChanged


def emit(value: object) -> None:
    sys.stdout.write(json.dumps(value, sort_keys=True) + "\n")
    sys.stdout.flush()


async def main() -> None:
    transport, mode, *rest = sys.argv[1:]
    changes: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changes.put_nowait("tools")
        elif isinstance(message, types.PromptListChangedNotification):
            changes.put_nowait("prompts")

    info = types.Implementation(name="host-example-python-test", version="1.0.0")
    answers = json.loads(os.environ.get("MCP_TEST_ANSWERS", "null"))
    callbacks: dict[str, object] = {}
    if answers is not None:

        async def on_elicit(_context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
            await asyncio.sleep(answers.get("delay", 0))
            return types.ElicitResult(**answers["elicit"])

        async def on_sample(_context: object, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
            await asyncio.sleep(answers.get("delay", 0))
            return types.CreateMessageResult(
                role="assistant",
                content=types.TextContent(type="text", text=answers["sample"]),
                model="python-test-model",
            )

        async def on_roots(_context: object) -> types.ListRootsResult:
            return types.ListRootsResult(roots=[types.Root(**root) for root in answers.get("roots", [])])

        callbacks = {
            "elicitation_callback": on_elicit,
            "sampling_callback": on_sample,
            "list_roots_callback": on_roots,
        }
    statuses: list[int] = []

    async def record_status(response: httpx2.Response) -> None:
        statuses.append(response.status_code)

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async with contextlib.AsyncExitStack() as stack:
        if transport == "stdio":
            server = StdioServerParameters(command=rest[0], args=rest[1:])
        else:
            url, token = rest
            http = await stack.enter_async_context(
                httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=30,
                    event_hooks={"response": [record_status]},
                )
            )
            server = streamable_http_client(url, http_client=http)
        try:
            client = await stack.enter_async_context(
                Client(
                    server, mode=mode, message_handler=on_message, client_info=info, cache=None, **callbacks
                )
            )
        except Exception as error:  # noqa: BLE001 - reported to the test, which decides
            while await reader.readline():
                emit({"connect_error": repr(error), "http_statuses": statuses})
            return
        while line := await reader.readline():
            command = json.loads(line)
            op = command["op"]
            if op == "list":
                tools, cursor, pages = [], None, 0
                while True:
                    page = await client.list_tools(cursor=cursor)
                    pages += 1
                    tools += [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools]
                    cursor = page.next_cursor
                    if cursor is None:
                        break
                emit({"tools": tools, "pages": pages})
            elif op == "call":
                result = await client.call_tool(command["name"], command.get("arguments", {}))
                emit(result.model_dump(mode="json", by_alias=True, exclude_none=True))
            elif op == "call_with_progress":
                reports: list[dict[str, object]] = []

                async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                    reports.append({"progress": progress, "total": total, "message": message})

                result = await client.call_tool(
                    command["name"], command.get("arguments", {}), progress_callback=on_progress
                )
                emit({"result": result.model_dump(mode="json", by_alias=True, exclude_none=True), "progress": reports})
            elif op == "prompts":
                page = await client.list_prompts()
                emit({"prompts": [p.model_dump(mode="json", by_alias=True, exclude_none=True) for p in page.prompts]})
            elif op == "get_prompt":
                try:
                    prompt = await client.get_prompt(command["name"])
                    emit(prompt.model_dump(mode="json", by_alias=True, exclude_none=True))
                except Exception as error:  # noqa: BLE001 - the test checks the refusal
                    emit({"error": str(error)})
            elif op == "listen":
                if client.protocol_version >= "2026-07-28":
                    subscription = await stack.enter_async_context(
                        client.listen(tools_list_changed=True, prompts_list_changed=True)
                    )

                    async def pump() -> None:
                        async for event in subscription:
                            changes.put_nowait("prompts" if isinstance(event, PromptsListChanged) else "tools")

                    stack.push_async_callback(_cancel, asyncio.create_task(pump()))
                emit({"listening": True})
            elif op == "wait_list_changed":
                try:
                    kind = await asyncio.wait_for(changes.get(), timeout=10)
                    emit({"list_changed": True, "kind": kind})
                except TimeoutError:
                    emit({"list_changed": False})
            elif op == "info":
                emit({"protocol": client.protocol_version})
            else:
                emit({"error": f"unknown op {op}"})


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task


if __name__ == "__main__":
    asyncio.run(main())
