// A stranger's Worker: the package's Workers entry as it is, bundled for workerd with esbuild.
export { default } from 'workspace-api/worker';
