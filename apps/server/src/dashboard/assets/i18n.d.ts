// Types of i18n.js for the TypeScript side (tests read the messages); the browser never loads this.
export declare const LANGS: readonly ["en", "th"];
export declare const MESSAGES: Record<"en" | "th", Record<string, string>>;
