declare const CHUTEBOX_VERSION: string | undefined;

/** The package version, set by the build (esbuild `define`) and by vitest.config.ts. */
export const PACKAGE_VERSION: string = typeof CHUTEBOX_VERSION === 'string' ? CHUTEBOX_VERSION : '0.0.0-dev';
