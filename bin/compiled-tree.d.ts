// Types of bin/compiled-tree.js (plain JavaScript: it runs before anything is compiled).
export declare const sourceFolders: string[]
export declare const stampName: string
export declare function sourceFingerprint(root: string): { files: string[]; fingerprint: string }
export declare function isFresh(root: string): boolean
export declare function runsFromSources(args: string[]): boolean
export declare function compiledCli(root: string, options?: { execPath?: string; warn?: (line: string) => void }): string
