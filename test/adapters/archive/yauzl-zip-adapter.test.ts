/**
 * YauzlZipAdapter, the Node adapter, against the ZipAdapter contract (./zip-adapter-contract.ts) it shares with
 * WebZipAdapter.
 */
import { YauzlZipAdapter } from '../../../adapters/archive/yauzl-zip-adapter.ts';
import { runZipAdapterContract } from './zip-adapter-contract.ts';

runZipAdapterContract('YauzlZipAdapter', () => new YauzlZipAdapter());
