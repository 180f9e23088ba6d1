export { ContentModule } from './content.module';
export { ContentApi } from './content.api';
