import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Value } from 'typebox/value';
import { type ApiCaller, ToolError } from './api.ts';
import { RESOURCE_TEMPLATES, readResource, STATIC_RESOURCES } from './resources.ts';
import {
  getContainer,
  getContainerRoute,
  getContainerTransportEvents,
  searchContainer,
} from './tools/containers.ts';
import { getEtaHistory } from './tools/history.ts';
import { getShipmentDetails, listContainers, listShipments } from './tools/shipments.ts';
import type { Tool } from './tools/tool.ts';
import { getSupportedShippingLines, listTrackingRequests, trackContainer } from './tools/tracking.ts';

/** The reference MCP server's ten tools, same names and compatible inputs, then this service's own. */
export const TOOLS: Tool[] = [
  searchContainer,
  trackContainer,
  getContainer,
  getShipmentDetails,
  getContainerTransportEvents,
  getSupportedShippingLines,
  getContainerRoute,
  listShipments,
  listContainers,
  listTrackingRequests,
  getEtaHistory,
];

const INSTRUCTIONS =
  'Ocean container and shipment tracking for one account. Start with search_container or list_shipments; ' +
  'ids from their answers feed get_shipment_details, get_container, get_container_transport_events and ' +
  'get_container_route; get_eta_history tells how an arrival estimate moved. track_container starts tracking a new number (the carrier answers in the background). ' +
  'The resource tracker://glossary/milestones explains every milestone name.';

function inputErrors(tool: Tool, args: unknown): string[] {
  return [...Value.Errors(tool.input, args)].map((e) => `${e.instancePath || '(arguments)'} ${e.message}`);
}

/** An MCP server whose every tool and resource reads the API as the caller (see api.ts). */
export function createMcpServer(api: ApiCaller, log?: { error(obj: object, msg: string): void }): Server {
  const server = new Server(
    { name: 'tracker', title: 'Container tracker', version: '0.1.0' },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const byName = new Map(TOOLS.map((t) => [t.name, t]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: JSON.parse(JSON.stringify(t.input)),
      annotations: { readOnlyHint: t.name !== 'track_container', openWorldHint: false },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}.`);
    const args = request.params.arguments ?? {};
    const problems = inputErrors(tool, args);
    if (problems.length) {
      return {
        isError: true,
        content: [{ type: 'text' as const, text: `Invalid input: ${problems.join('; ')}` }],
      };
    }
    try {
      const result = await tool.run(api, args);
      return { content: [{ type: 'text' as const, text: result.text }], structuredContent: result.data };
    } catch (err) {
      if (!(err instanceof ToolError)) log?.error({ err, tool: tool.name }, 'MCP tool failed');
      const text =
        err instanceof ToolError ? err.message : 'The tool failed unexpectedly; the server log has details.';
      return { isError: true, content: [{ type: 'text' as const, text }] };
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: STATIC_RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: RESOURCE_TEMPLATES,
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return { contents: await readResource(api, request.params.uri) };
    } catch (err) {
      if (err instanceof ToolError) throw new McpError(ErrorCode.InvalidParams, err.message);
      throw err;
    }
  });
  return server;
}
