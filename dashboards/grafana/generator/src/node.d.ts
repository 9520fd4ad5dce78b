// The few Node.js APIs generate.ts uses, declared here rather than adding
// @types/node (and its dependencies) for them.
declare module "node:fs" {
  export function readFileSync(path: string, encoding: "utf8"): string;
  export function writeFileSync(path: string, data: string): void;
}
declare module "node:path" {
  export function join(...parts: string[]): string;
}
declare const process: { argv: string[]; exitCode?: number };
