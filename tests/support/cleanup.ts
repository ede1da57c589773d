/** Vitest setup for every test file: the temporary folders a file made are removed when it ends. */
import { afterAll } from 'vitest';
import { removeTempDirs } from './tempRepo.js';

afterAll(removeTempDirs);
