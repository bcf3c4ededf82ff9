// Planted: a feature repository importing lowdb instead of store/'s Collection port.
import { Low } from 'lowdb';

export const database = Low;
